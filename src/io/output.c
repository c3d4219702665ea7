/* Result writers: CSV tables, VTK PolyData (.vtp) and ParaView collections (.pvd). */
#define _POSIX_C_SOURCE 200809L
#include "cosserat/output.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

cr_status cr_make_directory(const char *path, cr_error *err)
{
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0) return CR_OK;
    if (len >= sizeof buf) return cr_error_set(err, CR_IO, "%s: path too long", path);
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; ++i) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return cr_error_set(err, CR_IO, "%s: cannot create directory (%s)", buf, strerror(errno));
        buf[i] = c;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return cr_error_set(err, CR_IO, "%s: not a directory", path);
    return CR_OK;
}

/* Every output is written to PATH.tmp and renamed over PATH once complete, so a
 * file is either the previous complete one or the new complete one, never a
 * truncated mix (a full disk, a kill -9). */
FILE *cr_output_open(const char *path, cr_error *err)
{
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
        cr_error_set(err, CR_IO, "%s: path too long", path);
        return NULL;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) cr_error_set(err, CR_IO, "%s: cannot write (%s)", tmp, strerror(errno));
    return f;
}

cr_status cr_output_close(FILE *f, const char *path, cr_error *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    int bad = fflush(f) != 0 || ferror(f);
    int e = bad ? errno : 0;
    if (fclose(f) != 0 && !bad) bad = 1, e = errno;
    if (!bad && rename(tmp, path) != 0) bad = 1, e = errno;
    if (bad) {
        remove(tmp);
        return cr_error_set(err, CR_IO, "%s: write error (%s)", path, e ? strerror(e) : "stream error");
    }
    return CR_OK;
}

#define open_for_writing cr_output_open
#define close_file cr_output_close

cr_status cr_write_nodes_csv(const char *path, const cr_sim *sim, cr_error *err)
{
    FILE *f = open_for_writing(path, err);
    if (!f) return CR_IO;
    fprintf(f, "s,x,y,z,p0,p1,p2,p3\n");
    for (int i = 0; i < cr_sim_node_count(sim); ++i) {
        cr_vec3 r = cr_sim_position(sim, i);
        cr_quat p = cr_sim_orientation(sim, i);
        fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n", cr_sim_node_s(sim, i), r.x, r.y, r.z, p.w, p.x,
                p.y, p.z);
    }
    return close_file(f, path, err);
}

cr_status cr_write_elements_csv(const char *path, const cr_sim *sim, cr_error *err)
{
    FILE *f = open_for_writing(path, err);
    if (!f) return CR_IO;
    fprintf(f, "s,gamma_x,gamma_y,gamma_z,kappa_x,kappa_y,kappa_z,n_x,n_y,n_z,m_x,m_y,m_z\n");
    for (int e = 0; e < cr_sim_sample_count(sim); ++e) {
        cr_vec3 g, k, n, mo;
        cr_sim_sample(sim, e, &g, &k, &n, &mo);
        fprintf(f, "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g\n",
                cr_sim_sample_s(sim, e), g.x, g.y, g.z, k.x, k.y, k.z, n.x, n.y, n.z, mo.x, mo.y, mo.z);
    }
    return close_file(f, path, err);
}

static void vtk_cell_vectors(FILE *f, const cr_sim *sim, const char *name, int which)
{
    fprintf(f, "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"3\" format=\"ascii\">\n", name);
    for (int e = 0; e < cr_sim_sample_count(sim); ++e) {
        cr_vec3 v[4];
        cr_sim_sample(sim, e, &v[0], &v[1], &v[2], &v[3]);
        fprintf(f, "          %.12g %.12g %.12g\n", v[which].x, v[which].y, v[which].z);
    }
    fprintf(f, "        </DataArray>\n");
}

cr_status cr_write_vtp(const char *path, const cr_sim *sim, cr_error *err)
{
    FILE *f = open_for_writing(path, err);
    if (!f) return CR_IO;
    /* a line cell between consecutive nodes; every formulation has one strain sample per such segment
     * (mixed and lgvi: element midpoints; port-Hamiltonian: 2 Gauss points per quadratic element) */
    int nn = cr_sim_node_count(sim), ne = nn - 1, cells = cr_sim_sample_count(sim) == ne;
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
               "  <PolyData>\n    <Piece NumberOfPoints=\"%d\" NumberOfLines=\"%d\">\n      <Points>\n"
               "        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n",
            nn, ne);
    for (int i = 0; i < nn; ++i) {
        cr_vec3 r = cr_sim_position(sim, i);
        fprintf(f, "          %.12g %.12g %.12g\n", r.x, r.y, r.z);
    }
    fprintf(f, "        </DataArray>\n      </Points>\n      <Lines>\n"
               "        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n");
    for (int e = 0; e < ne; ++e) fprintf(f, "          %d %d\n", e, e + 1);
    fprintf(f, "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n");
    for (int e = 0; e < ne; ++e) fprintf(f, "          %d\n", 2 * (e + 1));
    fprintf(f, "        </DataArray>\n      </Lines>\n      <PointData Scalars=\"s\">\n"
               "        <DataArray type=\"Float64\" Name=\"s\" format=\"ascii\">\n");
    for (int i = 0; i < nn; ++i) fprintf(f, "          %.12g\n", cr_sim_node_s(sim, i));
    fprintf(f, "        </DataArray>\n"
               "        <DataArray type=\"Float64\" Name=\"quaternion\" NumberOfComponents=\"4\" format=\"ascii\">\n");
    for (int i = 0; i < nn; ++i) {
        cr_quat p = cr_sim_orientation(sim, i);
        fprintf(f, "          %.12g %.12g %.12g %.12g\n", p.w, p.x, p.y, p.z);
    }
    /* body axes as vectors, so ParaView glyphs can show the cross-section frames */
    const char *axes[3] = {"d1", "d2", "d3"};
    for (int a = 0; a < 3; ++a) {
        fprintf(f, "        </DataArray>\n"
                   "        <DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"3\" format=\"ascii\">\n",
                axes[a]);
        for (int i = 0; i < nn; ++i) {
            cr_vec3 d = cr_m3_column(cr_q_exp(cr_sim_orientation(sim, i)), a);
            fprintf(f, "          %.12g %.12g %.12g\n", d.x, d.y, d.z);
        }
    }
    fprintf(f, "        </DataArray>\n      </PointData>\n      <CellData>\n");
    if (cells) {
        vtk_cell_vectors(f, sim, "gamma", 0);
        vtk_cell_vectors(f, sim, "kappa", 1);
        vtk_cell_vectors(f, sim, "force", 2);
        vtk_cell_vectors(f, sim, "moment", 3);
    }
    fprintf(f, "      </CellData>\n    </Piece>\n  </PolyData>\n</VTKFile>\n");
    return close_file(f, path, err);
}

cr_status cr_write_pvd(const char *path, const char *const *files, const double *times, int count, cr_error *err)
{
    FILE *f = open_for_writing(path, err);
    if (!f) return CR_IO;
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n");
    for (int k = 0; k < count; ++k)
        fprintf(f, "    <DataSet timestep=\"%.12g\" part=\"0\" file=\"%s\"/>\n", times[k], files[k]);
    fprintf(f, "  </Collection>\n</VTKFile>\n");
    return close_file(f, path, err);
}
