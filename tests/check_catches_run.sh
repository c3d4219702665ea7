#!/usr/bin/env bash
# `check` decides what `run` would refuse: every example (and tests/scenarios/*.json) under
# every model, switched as a user would (--set model=NAME keeps the model's options; the
# "adapted" variant replaces the model object and drops the stage options the other
# integrator does not have, adds a fixed time_step or removes it), and with a static stage
# put first. Where `check` says ok, `run` with a tiny end time and one load step must not
# refuse the scenario (exit 1); a solver failure (exit 2) is not a refusal. Then the options
# of one formulation under another are refused at check, naming the key and the
# formulation, instead of being dropped.
set -u
cli="$1"
src="$2"
. "$src/tests/lib.bash"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

/usr/bin/python3 - "$src" "$tmp/v" > "$tmp/list" <<'EOF' || { echo "FAIL could not write the variants"; exit 1; }
import copy, json, os, sys
src, out = sys.argv[1], sys.argv[2]
os.makedirs(out)
MODELS = ["mixed_discrete", "port_hamiltonian", "lgvi"]
MIXED_DYNAMIC = ["rtol", "atol", "h_init", "h_max"]
MIXED_STATIC = ["max_iterations", "atol", "rtol", "stability", "path", "arc_length"]
T = 1e-5  # the end time of every dynamic stage: one fixed step
files = [os.path.join(src, "examples", f) for f in sorted(os.listdir(os.path.join(src, "examples")))]
files += [os.path.join(src, "tests", "scenarios", f) for f in sorted(os.listdir(os.path.join(src, "tests", "scenarios")))]
for path in files:
    if not path.endswith(".json"):
        continue
    base = json.load(open(path))
    for model in MODELS:
        for variant in ("switched", "adapted", "static-first"):
            sc = copy.deepcopy(base)
            if variant == "switched":  # as --set model=NAME does: the options stay
                if isinstance(sc.get("model"), dict): sc["model"]["type"] = model
                else: sc["model"] = model
            else:
                sc["model"] = model
            if variant == "static-first":
                sc["stages"] = [{"type": "static"}] + sc.get("stages", [{"type": "static"}])
            for st in sc["stages"]:
                if st.get("type", "static") == "dynamic":
                    st.update(t_end=T, output_dt=T, checkpoint_interval=0)
                    st.pop("snapshot_dt", None)
                    if model == "mixed_discrete":
                        if variant != "switched": st.pop("time_step", None)
                    elif variant != "switched" or "time_step" in st:
                        st["time_step"] = T
                        if variant != "switched":
                            for k in MIXED_DYNAMIC: st.pop(k, None)
                else:
                    if st.get("path") != "arc_length": st["load_steps"] = 1
                    st["max_halvings"] = 0
                    if variant != "switched" and model != "mixed_discrete":
                        for k in MIXED_STATIC: st.pop(k, None)
            sc.setdefault("output", {})["vtk"] = False
            name = "%s.%s.%s" % (os.path.basename(path)[:-5], model, variant)
            json.dump(sc, open(os.path.join(out, name + ".json"), "w"))
            print(name)
EOF

checked=0 ran=0 refused=0
while read -r name; do
    f="$tmp/v/$name.json"
    checked=$((checked + 1))
    if ! timeout -k 5 120 "$cli" check "$f" > /dev/null 2> "$tmp/check.err"; then
        refused=$((refused + 1))
        # a refusal says what to do: the formulation that can, or the key to change
        model=$(echo "$name" | cut -d. -f2)
        msg=$(grep -v 'warning:' "$tmp/check.err" | sed 's/^cosserat: [^ ]*: //')
        others=$(printf '%s\n' mixed_discrete port_hamiltonian lgvi | grep -v "^$model\$" | paste -sd'|')
        echo "$msg" | grep -Eq "$others|use |remove|add a|give " || bad "$name: a refusal without a remedy: $msg"
        continue
    fi
    ran=$((ran + 1))
    timeout -k 5 300 "$cli" run "$f" -q -o "$tmp/out" > /dev/null 2> "$tmp/run.err"
    code=$?
    rm -rf "$tmp/out"
    [ "$code" -eq 1 ] && bad "$name: check said ok, run refused it: $(grep -v warning "$tmp/run.err" | head -c 300)"
done < "$tmp/list"
ok "$checked variants: $refused refused at check, $ran passed it; no run refused what check passed"
[ "$ran" -ge 40 ] || bad "only $ran variants passed check: the sweep tests little"

# the model switch keeps the options, so another formulation's option is refused, naming it
# (it replaced the model object: the viscous cantilever ran without its viscoelastic branch)
ex="$src/examples/cantilever-kirchhoff-viscous.json"
expect_error 1 "an option of the port_hamiltonian model" check "$ex" --set rod.rigid_strains=null \
    --set model=mixed_discrete --set stages.0.time_step=null
expect_error 1 "model.viscoelastic: an option of the port_hamiltonian model" check "$ex" --set rod.rigid_strains=null \
    --set model=mixed_discrete --set model.newton_atol=null --set stages.0.time_step=null
expect_error 1 "model.newton_atol: an option of the port_hamiltonian model" check "$ex" --set model=lgvi
expect_error 1 "model.chart: an option of the lgvi model" check "$src/examples/pure-stretching.json" \
    --set model=port_hamiltonian --set model.dilatation=null
# the replaced object drops them on purpose
"$cli" check "$ex" --set rod.rigid_strains=null --set 'model={"type": "mixed_discrete"}' \
    --set stages.0.time_step=null > /dev/null 2>&1 && ok "model={\"type\": ...} replaces the options" ||
    bad "model={\"type\": ...} did not replace the options"
# stage options of the adaptive integrator under a fixed-step model, static Newton options under PH
expect_error 1 "stages.0.rtol: an option of the mixed_discrete model" check "$src/examples/flying-spaghetti.json" \
    --set stages.0.rtol=1e-8
expect_error 1 "stages.0.h_max: an option of the mixed_discrete model" check "$src/examples/pure-stretching.json" \
    --set stages.0.h_max=1e-3
expect_error 1 "stages.0.max_iterations: an option of the mixed_discrete model" check \
    "$src/examples/quasistatic-cantilever.json" --set 'stages=[{"type": "static", "max_iterations": 50}]'
expect_error 1 "stages.0.stability" check "$src/examples/quasistatic-cantilever.json" \
    --set 'stages=[{"type": "static", "stability": false}]'
# a static stage of the mixed rod with no support active in it
expect_error 1 "boundary_conditions: static stage 0 has no support" check "$src/examples/flying-spaghetti.json" \
    --set 'model={"type": "mixed_discrete"}' --set 'stages=[{"type": "static"}]'
expect_error 1 "static stage 1 has no support" check "$src/examples/heavy-pendulum.json" \
    --set 'boundary_conditions=[{"type": "clamp", "node": 0, "stages": [0]}, {"type": "pin", "node": 0, "stages": [2]}]'
exit $fail
