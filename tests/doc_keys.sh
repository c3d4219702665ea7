#!/usr/bin/env bash
# Every scenario key the parser accepts must be documented in docs/scenario.md.
#
#   bash tests/doc_keys.sh BUILD/cosserat SOURCE_DIR
#
# The accepted keys come from two independent places:
#   1. the source: the string literals of the schema arrays `static const char *const
#      XXX_KEYS[] = {...};` in the parser's files src/io/scenario*.c (the key tables are in
#      scenario_schema.c; the enum value lists XXX_CHOICES[] with the section that reads them);
#   2. the running parser: `cosserat check` on a small scenario with an unknown key injected
#      into every kind of object (and every `type` variant; the objects are otherwise valid)
#      prints "unknown key (expected one of ...)", the list the parser really uses there.
# Checks:
#   - the extraction is not vacuous (the parser's files found, the key tables among them,
#     > 40 keys and > 30 enum values from the source, every probe answered);
#   - the probed keys are a subset of the extracted ones (the extraction sees the schema);
#   - every key (and every enum value) appears backticked, as `key`, in docs/scenario.md;
#   - loosely the other way: every key in the first column of a "| key |" table of
#     docs/scenario.md is accepted somewhere by the parser.
# Exit 0 when all hold; 1 with the offending keys listed otherwise.
set -u

if [ $# -ne 2 ]; then
    echo "usage: bash tests/doc_keys.sh BUILD/cosserat SOURCE_DIR" >&2
    exit 2
fi
CLI=$1
SRC=$2
PARSER="$SRC/src/io/scenario*.c" # for messages; the files themselves are in PARSER_FILES
PARSER_FILES=("$SRC"/src/io/scenario*.c)
DOC="$SRC/docs/scenario.md"
for f in "$CLI" "$SRC/src/io/scenario.c" "$SRC/src/io/scenario_schema.c" "$DOC"; do
    if [ ! -e "$f" ]; then
        echo "doc_keys: $f not found" >&2
        exit 1
    fi
done

TMP=$(mktemp -d "${TMPDIR:-/tmp}/cosserat_doc_keys.XXXXXX") || exit 1
trap 'rm -rf "$TMP"' EXIT
fail=0

# ---- 1. keys and enum values from the schema arrays of the parser source --------------------
# Joins each `static const char *const NAME[] = { ... };` declaration onto one line (they
# span several lines), keeps those whose NAME ends in KEYS (or CHOICES) and prints the
# string literals inside the braces, one per line.
schema_strings() { # $1 = KEYS | CHOICES
    awk -v suffix="$1" '
        function flush() {
            if (decl != "" && match(decl, /[A-Za-z0-9_]+[ \t]*\[[ \t]*\][ \t]*=/)) {
                name = substr(decl, RSTART, RLENGTH)
                sub(/[ \t]*\[.*/, "", name)
                if (name ~ (suffix "$")) {
                    body = decl
                    sub(/^[^{]*\{/, "", body)
                    sub(/\}.*$/, "", body)
                    while (match(body, /"[^"]*"/)) {
                        print substr(body, RSTART + 1, RLENGTH - 2)
                        body = substr(body, RSTART + RLENGTH)
                    }
                }
            }
            decl = ""
        }
        /static[ \t]+const[ \t]+char[ \t]*\*[ \t]*const[ \t]+[A-Za-z0-9_]+[ \t]*\[[ \t]*\][ \t]*=/ { decl = $0; if ($0 ~ /;/) flush(); next }
        decl != "" { decl = decl " " $0; if ($0 ~ /;/) flush() }
    ' "${PARSER_FILES[@]}" | sort -u
}
schema_strings KEYS >"$TMP/source_keys"
schema_strings CHOICES >"$TMP/source_choices"
n_source=$(wc -l <"$TMP/source_keys")
n_choices=$(wc -l <"$TMP/source_choices")
echo "doc_keys: $n_source distinct keys and $n_choices enum values in the schema arrays of" \
    "${#PARSER_FILES[@]} files src/io/scenario*.c"
if [ "${#PARSER_FILES[@]}" -lt 2 ]; then
    echo "FAIL: expected the parser split into several files src/io/scenario*.c, found ${#PARSER_FILES[@]}" >&2
    fail=1
fi
if [ "$n_choices" -le 30 ]; then
    echo "FAIL: only $n_choices enum values extracted from $PARSER (expected > 30): the value lists" \
        "(static const char *const XXX_CHOICES[] = {...};) were not found" >&2
    fail=1
fi
if [ "$n_source" -le 40 ]; then
    echo "FAIL: only $n_source keys extracted from $PARSER (expected > 40): the schema arrays" \
        "(static const char *const XXX_KEYS[] = {...};) were not found" >&2
    fail=1
fi

# ---- 2. keys the running parser lists for an unknown key, per object kind --------------------
cat >"$TMP/base.json" <<'EOF'
{
  "rod": {
    "length": 1.0,
    "elements": 2,
    "material": { "E": 1.0, "G": 1.0, "rho": 1.0 },
    "sections": [ { "shape": "circle", "radius": 0.1 } ]
  }
}
EOF
P=zz_doc_keys_probe
probes=(
    "$P=1"
    "rod.$P=1"
    "rod.material.$P=1"
    "rod.reference={\"type\": \"straight\", \"$P\": 1}"
    "rod.reference={\"type\": \"helix\", \"radius\": 1, \"$P\": 1}"
    "rod.reference={\"type\": \"nodes\", \"positions\": [[0, 0, 0], [0.5, 0, 0], [1, 0, 0]], \"quaternions\": [[1, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]], \"$P\": 1}"
    "rod.reference={\"frame\": {\"e_x\": [1, 0, 0], \"e_y\": [0, 1, 0], \"$P\": 1}}"
    "rod.sections=[{\"shape\": \"circle\", \"radius\": 0.1, \"$P\": 1}]"
    "rod.sections=[{\"shape\": \"rectangle\", \"width\": 0.1, \"height\": 0.1, \"$P\": 1}]"
    "boundary_conditions=[{\"type\": \"clamp\", \"node\": \"start\", \"$P\": 1}]"
    "boundary_conditions=[{\"type\": \"pose\", \"node\": \"start\", \"position\": [0, 0, 0], \"quaternion\": [1, 0, 0, 0], \"$P\": 1}]"
    "rigid_bodies=[{\"name\": \"b\", \"node\": \"end\", \"mass\": 1, \"center\": [0, 0, 0], \"inertia\": [1, 1, 1], \"$P\": 1}]"
    "loads=[{\"type\": \"force\", \"node\": \"end\", \"value\": [0, 0, 1], \"$P\": 1}]"
    "loads=[{\"type\": \"moment\", \"node\": \"end\", \"value\": [0, 0, 1], \"$P\": 1}]"
    "loads=[{\"type\": \"force_density\", \"value\": [0, 0, 1], \"$P\": 1}]"
    "loads=[{\"type\": \"moment_density\", \"value\": [0, 0, 1], \"$P\": 1}]"
    "loads=[{\"type\": \"gravity\", \"value\": [0, 0, -1], \"$P\": 1}]"
    "loads=[{\"type\": \"tendon\", \"tension\": 1, \"offset\": {\"y\": 0.05}, \"$P\": 1}]"
    "loads=[{\"type\": \"tendon\", \"tension\": 1, \"offset\": {\"y\": 0.05, \"$P\": 1}}]"
    "loads=[{\"type\": \"gravity\", \"value\": [0, 0, -1], \"time\": {\"type\": \"constant\", \"$P\": 1}}]"
    "loads=[{\"type\": \"gravity\", \"value\": [0, 0, -1], \"time\": {\"type\": \"ramp\", \"t0\": 0, \"t1\": 1, \"$P\": 1}}]"
    "loads=[{\"type\": \"gravity\", \"value\": [0, 0, -1], \"time\": {\"type\": \"smooth_step\", \"t0\": 0, \"t1\": 1, \"$P\": 1}}]"
    "loads=[{\"type\": \"gravity\", \"value\": [0, 0, -1], \"time\": {\"type\": \"sine\", \"frequency\": 1, \"$P\": 1}}]"
    "loads=[{\"type\": \"gravity\", \"value\": [0, 0, -1], \"time\": {\"type\": \"table\", \"points\": [[0, 0], [1, 1]], \"$P\": 1}}]"
    "stages=[{\"type\": \"static\", \"$P\": 1}]"
    "stages=[{\"type\": \"dynamic\", \"t_end\": 1, \"output_dt\": 0.1, \"$P\": 1}]"
    "output={\"$P\": 1}"
    "output={\"track\": [{\"name\": \"p\", \"node\": 1, \"$P\": 1}]}"
)
: >"$TMP/probe_keys"
for set in "${probes[@]}"; do
    msg=$("$CLI" check "$TMP/base.json" --set "$set" 2>&1)
    list=$(printf '%s\n' "$msg" | grep -o "$P: unknown key[^(]*(expected one of [^)]*)" | head -n 1 |
        sed 's/.*expected one of //; s/)$//')
    if [ -z "$list" ]; then
        echo "FAIL: probe --set '$set' did not report the unknown key with its list of allowed keys;" \
            "the parser said: $msg" >&2
        fail=1
        continue
    fi
    printf '%s\n' "$list" | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -v '^$' >>"$TMP/probe_keys"
done
sort -u -o "$TMP/probe_keys" "$TMP/probe_keys"
n_probe=$(wc -l <"$TMP/probe_keys")
echo "doc_keys: $n_probe distinct keys reported by the parser over ${#probes[@]} probes"

not_in_source=$(comm -23 "$TMP/probe_keys" "$TMP/source_keys")
if [ -n "$not_in_source" ]; then
    echo "FAIL: the parser accepts keys that the extraction from $PARSER missed (fix the extraction):" >&2
    printf '  %s\n' $not_in_source >&2
    fail=1
fi

# ---- 3. every accepted key and enum value is documented as `key` ------------------------------
sort -u "$TMP/source_keys" "$TMP/probe_keys" >"$TMP/all_keys"
grep -o '`[^`]*`' "$DOC" | tr -d '`' | sort -u >"$TMP/doc_backticked"
missing_keys=$(comm -23 "$TMP/all_keys" "$TMP/doc_backticked")
if [ -n "$missing_keys" ]; then
    echo "FAIL: keys accepted by the parser but not documented (as \`key\`) in docs/scenario.md:" >&2
    printf '  %s\n' $missing_keys >&2
    fail=1
fi
missing_choices=$(comm -23 "$TMP/source_choices" "$TMP/doc_backticked")
if [ -n "$missing_choices" ]; then
    echo "FAIL: enum values accepted by the parser but not documented (as \`value\`) in docs/scenario.md:" >&2
    printf '  %s\n' $missing_choices >&2
    fail=1
fi

# ---- 4. loosely the other way: documented table keys are accepted somewhere -------------------
# First-column entries `key` of the tables whose header row starts with "| key |".
awk '
    /^\|[ \t]*key[ \t]*\|/ { in_table = 1; next }
    in_table && /^\|/ {
        split($0, cell, "|")
        c = cell[2]
        if (match(c, /`[^`]+`/)) print substr(c, RSTART + 1, RLENGTH - 2)
        next
    }
    { in_table = 0 }
' "$DOC" | sort -u >"$TMP/doc_table_keys"
n_doc=$(wc -l <"$TMP/doc_table_keys")
echo "doc_keys: $n_doc distinct keys in the key tables of docs/scenario.md"
unknown_doc=$(comm -23 "$TMP/doc_table_keys" "$TMP/all_keys")
if [ -n "$unknown_doc" ]; then
    echo "FAIL: keys documented in docs/scenario.md tables that the parser does not accept anywhere:" >&2
    printf '  %s\n' $unknown_doc >&2
    fail=1
fi
if [ "$n_doc" -le 40 ]; then
    echo "FAIL: only $n_doc keys found in the tables of $DOC (expected > 40)" >&2
    fail=1
fi

if [ "$fail" -eq 0 ]; then
    echo "doc_keys: ok ($(wc -l <"$TMP/all_keys") keys, $n_choices enum values documented)"
fi
exit "$fail"
