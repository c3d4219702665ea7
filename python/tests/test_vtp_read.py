"""cosserat.output.read_vtp on every encoding of output.vtk_format, and (when python3 has the vtk
module) on the encodings VTK's own writer produces from the same data."""

import numpy as np
import pytest

from cosserat.output import read_output, read_vtp

from conftest import TENDON, run_cli

SETS = ("rod.elements=30", "stages.0.load_steps=2")


@pytest.fixture(scope="module")
def encodings(tmp_path_factory):
    out = {}
    for fmt in ("binary", "compressed", "ascii"):
        d = tmp_path_factory.mktemp(fmt)
        run_cli(TENDON, d, *SETS, f"output.vtk_format={fmt}")
        out[fmt] = d
    return out


def test_binary_is_exact_and_equals_the_other_encodings(encodings):
    runs = {fmt: read_output(str(d)) for fmt, d in encodings.items()}
    b, c, a = runs["binary"], runs["compressed"], runs["ascii"]
    assert len(b.snapshots) == len(c.snapshots) == len(a.snapshots) == 2
    last = b.snapshots[-1]
    # the final snapshot is the final state: nodes.csv's numbers (17 digits) to the last bit
    np.testing.assert_array_equal(last.points, np.column_stack([b.nodes[k] for k in "xyz"]))
    np.testing.assert_array_equal(last.point_data["quaternion"], np.column_stack([b.nodes[f"p{k}"] for k in range(4)]))
    np.testing.assert_array_equal(last.field_data["sample_s"], b.elements["s"])
    assert last.field_data["load_factor"][0] == 1.0 and last.field_data["stage"][0] == 0
    for sb, sc, sa in zip(b.snapshots, c.snapshots, a.snapshots):
        assert sb.time == sc.time == sa.time
        np.testing.assert_array_equal(sb.points, sc.points)
        np.testing.assert_allclose(sb.points, sa.points, rtol=5.000001e-12, atol=0)
        assert sorted(sb.point_data) == sorted(sc.point_data) == sorted(sa.point_data)
        assert sorted(sb.field_data) == sorted(sc.field_data) == sorted(sa.field_data)
        for group in ("point_data", "field_data"):
            for name, x in getattr(sb, group).items():
                np.testing.assert_array_equal(x, getattr(sc, group)[name])
                # the text has 12 significant digits
                np.testing.assert_allclose(x, getattr(sa, group)[name], rtol=5.000001e-12, atol=0, err_msg=name)


def test_vtk_writer_encodings(encodings, tmp_path):
    vtk = pytest.importorskip("vtk", reason="python3 has no vtk module (Debian: python3-vtk9)")
    path = str(sorted(encodings["binary"].glob("rod_*.vtp"))[-1])
    ref = read_vtp(path)
    r = vtk.vtkXMLPolyDataReader()
    r.SetFileName(path)
    r.Update()
    assert r.GetErrorCode() == 0
    for mode in ("appended-raw", "appended-base64", "inline"):
        for compressed in (False, True):
            for header in (32, 64):
                w = vtk.vtkXMLPolyDataWriter()
                w.SetInputData(r.GetOutput())
                f = str(tmp_path / f"{mode}-{compressed}-{header}.vtp")
                w.SetFileName(f)
                if mode == "inline":
                    w.SetDataModeToBinary()
                else:
                    w.SetDataModeToAppended()
                    w.SetEncodeAppendedData(mode == "appended-base64")
                if compressed:
                    w.SetCompressorTypeToZLib()
                    w.SetBlockSize(4096)  # several blocks, the last one partial
                else:
                    w.SetCompressorTypeToNone()
                w.SetHeaderTypeToUInt32() if header == 32 else w.SetHeaderTypeToUInt64()
                assert w.Write() == 1
                s = read_vtp(f)
                np.testing.assert_array_equal(s.points, ref.points, err_msg=f)
                assert sorted(s.point_data) == sorted(ref.point_data)
                for name, x in ref.point_data.items():
                    np.testing.assert_array_equal(s.point_data[name], x, err_msg=f"{f}: {name}")
                for name, x in ref.field_data.items():
                    np.testing.assert_array_equal(s.field_data[name], x, err_msg=f"{f}: {name}")


def test_unsupported_compressor(tmp_path):
    f = tmp_path / "lz4.vtp"
    f.write_text('<?xml version="1.0"?>\n<VTKFile type="PolyData" version="1.0" compressor="vtkLZ4DataCompressor">'
                 '<PolyData><Piece NumberOfPoints="0"><Points><DataArray type="Float64" NumberOfComponents="3" '
                 'format="ascii"></DataArray></Points></Piece></PolyData></VTKFile>\n')
    with pytest.raises(ValueError, match="vtkLZ4DataCompressor"):
        read_vtp(str(f))
