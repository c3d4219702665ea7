/* Result writers: CSV tables, VTK PolyData (.vtp) and ParaView collections (.pvd). */
#define _POSIX_C_SOURCE 200809L
#include "cosserat/output.h"
#include "io/shortest.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <zlib.h>

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
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return cr_error_set(err, CR_IO, "%s: not a directory", path);
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

/* One CSV row of `count` (<= 16) numbers: the shortest text that reads back as exactly the same
 * double (io/shortest.c), where it was %.17g: as exact, a few digits shorter, and a thirtieth
 * of the instructions of glibc's printf (which dominated the tendon manipulator's outputs once
 * the snapshots were binary). */
static void csv_row(FILE *f, const double *v, int count)
{
    char line[16 * (CR_SHORTEST_SIZE + 1) + 1];
    char *p = line;
    for (int k = 0; k < count; ++k) {
        if (k) *p++ = ',';
        p = cr_format_shortest(p, v[k]);
    }
    *p++ = '\n';
    fwrite(line, 1, (size_t)(p - line), f);
}

cr_status cr_write_nodes_csv(const char *path, const cr_sim *sim, cr_error *err)
{
    FILE *f = open_for_writing(path, err);
    if (!f) return CR_IO;
    /* an assembly: a first column `rod` with the rod's name (the rows rod by rod) */
    int R = cr_sim_rod_count(sim);
    cr_contact_sample cs;
    const int contact = cr_sim_contact(sim, 0, &cs); /* obstacles: the contact columns too */
    fprintf(f, "%ss,x,y,z,p0,p1,p2,p3%s\n", R > 1 ? "rod," : "",
            contact ? ",contact_fx,contact_fy,contact_fz,contact_gap,contact_state" : "");
    for (int i = 0; i < cr_sim_node_count(sim); ++i) {
        cr_vec3 r = cr_sim_position(sim, i);
        cr_quat p = cr_sim_orientation(sim, i);
        double row[13] = {cr_sim_node_s(sim, i), r.x, r.y, r.z, p.w, p.x, p.y, p.z};
        if (contact) {
            cr_sim_contact(sim, i, &cs);
            row[8] = cs.force.x, row[9] = cs.force.y, row[10] = cs.force.z;
            row[11] = isfinite(cs.gap) ? cs.gap : 0.0; /* no obstacle near: 0 with state 0 */
            row[12] = cs.state;
        }
        if (R > 1) fprintf(f, "%s,", cr_sim_rod_name(sim, cr_sim_node_rod(sim, i)));
        csv_row(f, row, contact ? 13 : 8);
    }
    return close_file(f, path, err);
}

cr_status cr_write_elements_csv(const char *path, const cr_sim *sim, cr_error *err)
{
    FILE *f = open_for_writing(path, err);
    if (!f) return CR_IO;
    int R = cr_sim_rod_count(sim), r = 0;
    fprintf(f, "%ss,gamma_x,gamma_y,gamma_z,kappa_x,kappa_y,kappa_z,n_x,n_y,n_z,m_x,m_y,m_z\n", R > 1 ? "rod," : "");
    for (int e = 0; e < cr_sim_sample_count(sim); ++e) {
        cr_vec3 g, k, n, mo;
        cr_sim_sample(sim, e, &g, &k, &n, &mo);
        double row[13] = {cr_sim_sample_s(sim, e), g.x, g.y, g.z, k.x, k.y, k.z, n.x, n.y, n.z, mo.x, mo.y, mo.z};
        while (r + 1 < R && e >= cr_sim_rod_first_sample(sim, r + 1)) ++r;
        if (R > 1) fprintf(f, "%s,", cr_sim_rod_name(sim, r));
        csv_row(f, row, 13);
    }
    return close_file(f, path, err);
}

/* ---- VTK XML PolyData (.vtp) and ParaView collections (.pvd) ----
 * Three encodings of the same arrays (cr_vtk_format):
 * - binary (the default): Float64 arrays as raw bytes in an <AppendedData encoding="raw">
 *   section, as VTK's own writer stores them: exact, and written at the cost of a memcpy (a
 *   profile of the tendon manipulator, n = 1250, found a third of all instructions of the run
 *   in the text snapshots). Not valid XML past <AppendedData> (the Python package reads it).
 * - compressed: the same, each array in zlib-compressed blocks. Measured on that run, zlib
 *   at its fastest level costs more instructions than the text did (computed doubles hardly
 *   compress: their mantissas are noise) for files 35 % smaller than binary: for disk, not
 *   for speed.
 * - ascii: the text every DataArray had before, for people who diff files; the numbers go
 *   through a buffer and a formatter of their own (12 significant digits, the text of %.12g
 *   but for rare ties) instead of one fprintf per value: about half the time per value of
 *   fprintf.
 * The XML part is streamed to the file through a buffer; in the binary encodings the arrays
 * collect in memory (`app`) until the end, since each DataArray tag names its offset. */

typedef struct vtk_out {
    FILE *f;
    size_t len;
    int binary, compress;
    cr_status status; /* CR_NO_MEMORY when a binary array could not be encoded */
    z_stream z;
    int z_ready;
    unsigned char *app; /* the appended section */
    size_t app_len, app_cap;
    char buf[1 << 16];
} vtk_out;

static void out_flush(vtk_out *o)
{
    if (o->len) fwrite(o->buf, 1, o->len, o->f);
    o->len = 0;
}

static void out_str(vtk_out *o, const char *s)
{
    size_t n = strlen(s);
    if (o->len + n > sizeof o->buf) out_flush(o);
    if (n > sizeof o->buf) {
        fwrite(s, 1, n, o->f);
        return;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
}

static void out_fmt(vtk_out *o, const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    out_str(o, line);
}

/* a · 10^k for |k| <= 300 in extended precision (x87 long double where available: the 12th
 * digit then rounds as printf's does but for rare ties); 10^k = 10^(16 i) 10^j from two
 * small tables of exact literals */
static long double scale_pow10(double a, int k)
{
    static const long double lo[16] = {1e0L, 1e1L, 1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,
                                       1e8L, 1e9L, 1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L};
    static const long double hi[19] = {1e0L,   1e16L,  1e32L,  1e48L,  1e64L,  1e80L,  1e96L,  1e112L, 1e128L, 1e144L,
                                       1e160L, 1e176L, 1e192L, 1e208L, 1e224L, 1e240L, 1e256L, 1e272L, 1e288L};
    int m = k < 0 ? -k : k;
    long double p = hi[m / 16] * lo[m % 16];
    return k >= 0 ? (long double)a * p : (long double)a / p;
}

/* v with 12 significant digits into p (at least 32 bytes), the text printf's %.12g
 * gives; returns the end. Returns NULL (caller falls back to snprintf) outside the
 * range where scaling by a power of ten stays exact enough. */
static char *format_g12(char *p, double v)
{
    if (v == 0) {
        *p++ = '0';
        return p;
    }
    if (!isfinite(v)) return NULL;
    double a = fabs(v);
    int e2;
    frexp(a, &e2); /* a in [2^(e2-1), 2^e2): floor(log10 a) is this estimate or one more */
    int e = (int)floor((e2 - 1) * 0.30102999566398120);
    if (e < -280 || e > 280) return NULL;
    /* 12 digits: d = round(a · 10^(11 - e)) in [10^11, 10^12) */
    long double scaled = scale_pow10(a, 11 - e);
    uint64_t d = (uint64_t)(scaled + 0.5L);
    if (d >= 1000000000000ULL) { /* rounding carried into a 13th digit, or log10 was low */
        ++e;
        scaled = scale_pow10(a, 11 - e);
        d = (uint64_t)(scaled + 0.5L);
    } else if (d < 100000000000ULL) { /* log10 was high */
        --e;
        scaled = scale_pow10(a, 11 - e);
        d = (uint64_t)(scaled + 0.5L);
    }
    if (d >= 1000000000000ULL || d < 100000000000ULL) return NULL;
    char dig[12];
    for (int k = 11; k >= 0; --k) dig[k] = (char)('0' + d % 10), d /= 10;
    int nd = 12;
    while (nd > 1 && dig[nd - 1] == '0') --nd;
    if (v < 0) *p++ = '-';
    if (e >= -4 && e < 12) {
        if (e >= 0) {
            for (int k = 0; k <= e; ++k) *p++ = k < nd ? dig[k] : '0';
            if (nd > e + 1) {
                *p++ = '.';
                for (int k = e + 1; k < nd; ++k) *p++ = dig[k];
            }
        } else {
            *p++ = '0';
            *p++ = '.';
            for (int k = 0; k < -e - 1; ++k) *p++ = '0';
            for (int k = 0; k < nd; ++k) *p++ = dig[k];
        }
    } else {
        *p++ = dig[0];
        if (nd > 1) {
            *p++ = '.';
            for (int k = 1; k < nd; ++k) *p++ = dig[k];
        }
        *p++ = 'e';
        *p++ = e < 0 ? '-' : '+';
        int x = abs(e);
        if (x >= 100) *p++ = (char)('0' + x / 100);
        *p++ = (char)('0' + x / 10 % 10);
        *p++ = (char)('0' + x % 10);
    }
    return p;
}

static void out_doubles(vtk_out *o, const double *v, int count)
{
    if (o->len + 40 * (size_t)count + 16 > sizeof o->buf) out_flush(o);
    if (40 * (size_t)count + 16 > sizeof o->buf) { /* a long row: value by value */
        for (int k = 0; k < count; ++k) out_doubles(o, v + k, 1);
        return;
    }
    char *p = o->buf + o->len;
    for (int k = 0; k < count; ++k) {
        *p++ = ' ';
        char *q = format_g12(p, v[k]);
        p = q ? q : p + snprintf(p, 32, "%.12g", v[k]);
    }
    o->len = (size_t)(p - o->buf);
}

/* ---- binary arrays ----
 * The layout VTK's reader expects (VTK XML file formats, "Appended Data Section" and
 * "Compressed Data"; header_type="UInt64"): each array is a UInt64 byte count followed by
 * the bytes; with compressor="vtkZLibDataCompressor" a header of UInt64 [#blocks][block
 * size][size of the last, partial block, 0 if it is full][compressed size of each block]
 * followed by the blocks, each an independent zlib stream of up to `block size`
 * uncompressed bytes. A DataArray's offset counts bytes from the character after the '_'.
 * Bytes are the machine's (byte_order says which). */

enum {
    VTK_BLOCK = 1 << 15, /* VTK's own writer's block size */
    /* the fastest: measured on the tendon manipulator (n = 1250, 8 snapshots), deflate takes
     * 361 million instructions at level 1 and 521 at level 6 for files within 1 % of each
     * other; Z_HUFFMAN_ONLY (319) and Z_RLE (297) save little and give 17 and 12 % more */
    VTK_ZLIB_LEVEL = 1
};

static int app_reserve(vtk_out *o, size_t more)
{
    if (o->app_len + more <= o->app_cap) return 1;
    size_t cap = o->app_cap ? o->app_cap : 1 << 16;
    while (cap < o->app_len + more) cap *= 2;
    unsigned char *a = realloc(o->app, cap);
    if (!a) return 0;
    o->app = a, o->app_cap = cap;
    return 1;
}

/* Appends `bytes` bytes at `data` (compressed or not) to the appended section; returns the
 * array's offset, or (size_t)-1 when out of memory (o->status is set). */
static size_t vtk_append(vtk_out *o, const void *data, size_t bytes)
{
    size_t offset = o->app_len;
    if (o->status != CR_OK) return (size_t)-1;
    if (!o->compress) {
        uint64_t n = bytes;
        if (!app_reserve(o, sizeof n + bytes)) goto no_memory;
        memcpy(o->app + o->app_len, &n, sizeof n);
        if (bytes) memcpy(o->app + o->app_len + sizeof n, data, bytes);
        o->app_len += sizeof n + bytes;
        return offset;
    }
    size_t blocks = (bytes + VTK_BLOCK - 1) / VTK_BLOCK;
    if (!o->z_ready) {
        memset(&o->z, 0, sizeof o->z);
        if (deflateInit(&o->z, VTK_ZLIB_LEVEL) != Z_OK) goto no_memory;
        o->z_ready = 1;
    }
    size_t bound = deflateBound(&o->z, VTK_BLOCK), hbytes = (3 + blocks) * sizeof(uint64_t);
    if (!app_reserve(o, hbytes + blocks * bound)) goto no_memory;
    uint64_t header[3] = {blocks, VTK_BLOCK, bytes % VTK_BLOCK};
    memcpy(o->app + offset, header, sizeof header);
    unsigned char *p = o->app + offset + hbytes;
    for (size_t b = 0; b < blocks; ++b) {
        size_t in = b + 1 < blocks || bytes % VTK_BLOCK == 0 ? VTK_BLOCK : bytes % VTK_BLOCK;
        if (deflateReset(&o->z) != Z_OK) goto no_memory;
        o->z.next_in = (unsigned char *)data + b * VTK_BLOCK;
        o->z.avail_in = (uInt)in;
        o->z.next_out = p;
        o->z.avail_out = (uInt)bound;
        if (deflate(&o->z, Z_FINISH) != Z_STREAM_END) goto no_memory; /* not with deflateBound's room */
        uint64_t c = o->z.total_out;
        memcpy(o->app + offset + (3 + b) * sizeof c, &c, sizeof c);
        p += c;
    }
    o->app_len = (size_t)(p - o->app);
    return offset;
no_memory:
    o->status = CR_NO_MEMORY;
    return (size_t)-1;
}

static const char *byte_order(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one ? "LittleEndian" : "BigEndian";
}

/* The tag of an appended DataArray (its values went to o->app at `offset`). */
static void out_appended_tag(vtk_out *o, const char *indent, const char *type, const char *name, int comps, int count,
                             size_t offset)
{
    out_fmt(o,
            "%s<DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" NumberOfTuples=\"%d\" "
            "format=\"appended\" offset=\"%zu\"/>\n",
            indent, type, name, comps, count, offset == (size_t)-1 ? (size_t)0 : offset);
}

/* A DataArray of `count` tuples of `comps` Float64 values (row-major), one tuple a line.
 * NumberOfTuples is needed by VTK's reader for field data (it sizes the array from it). */
static void out_array(vtk_out *o, const char *indent, const char *name, int comps, const double *v, int count)
{
    if (o->binary) {
        size_t offset = vtk_append(o, v, (size_t)count * comps * sizeof(double));
        out_appended_tag(o, indent, "Float64", name, comps, count, offset);
        return;
    }
    out_fmt(o,
            "%s<DataArray type=\"Float64\" Name=\"%s\" NumberOfComponents=\"%d\" NumberOfTuples=\"%d\" "
            "format=\"ascii\">\n",
            indent, name, comps, count);
    for (int k = 0; k < count; ++k) {
        out_str(o, indent);
        out_doubles(o, v + (size_t)k * comps, comps);
        out_str(o, "\n");
    }
    out_fmt(o, "%s</DataArray>\n", indent);
}

/* A single value of field data. Text in every encoding, so that a file's time can be read
 * by eye; exact (the shortest text that round-trips) in binary files, whose arrays are exact. */
static void out_field_value(vtk_out *o, const char *name, double v)
{
    out_fmt(o, "      <DataArray type=\"Float64\" Name=\"%s\" NumberOfTuples=\"1\" format=\"ascii\">", name);
    if (o->binary) {
        char t[CR_SHORTEST_SIZE + 2] = " ";
        *cr_format_shortest(t + 1, v) = 0;
        out_str(o, t);
    } else {
        out_doubles(o, &v, 1);
    }
    out_str(o, " </DataArray>\n");
}

static void out_header(vtk_out *o, const cr_sim *sim, int stage)
{
    /* header_type needs file format version 1.0 (VTK >= 6) */
    if (o->binary)
        out_fmt(o,
                "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"1.0\" byte_order=\"%s\" "
                "header_type=\"UInt64\"%s>\n",
                byte_order(), o->compress ? " compressor=\"vtkZLibDataCompressor\"" : "");
    else
        out_str(o,
                "<?xml version=\"1.0\"?>\n<VTKFile type=\"PolyData\" version=\"0.1\" byte_order=\"LittleEndian\">\n");
    out_str(o, "  <PolyData>\n    <FieldData>\n");
    out_field_value(o, "time", cr_sim_time(sim));
    out_field_value(o, "load_factor", cr_sim_load_factor(sim));
    if (stage >= 0) out_field_value(o, "stage", stage);
}

/* Connectivity of `cells` cells of `per` consecutive points each (the whole polyline: one
 * cell of all points; vertices: cells of one point). */
static void out_cells(vtk_out *o, const char *kind, int cells, int per)
{
    if (o->binary) {
        int n = cells * per;
        int32_t *ids = malloc((size_t)(n > cells ? n : cells) * sizeof *ids);
        size_t at[2] = {(size_t)-1, (size_t)-1};
        if (!ids) {
            o->status = CR_NO_MEMORY;
        } else {
            for (int i = 0; i < n; ++i) ids[i] = i;
            at[0] = vtk_append(o, ids, (size_t)n * sizeof *ids);
            for (int c = 0; c < cells; ++c) ids[c] = per * (c + 1);
            at[1] = vtk_append(o, ids, (size_t)cells * sizeof *ids);
            free(ids);
        }
        out_fmt(o, "      <%s>\n", kind);
        out_appended_tag(o, "        ", "Int32", "connectivity", 1, n, at[0]);
        out_appended_tag(o, "        ", "Int32", "offsets", 1, cells, at[1]);
        out_fmt(o, "      </%s>\n", kind);
        return;
    }
    out_fmt(o, "      <%s>\n        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n", kind);
    for (int i = 0; i < cells * per; ++i) out_fmt(o, i % 16 == 15 || i == cells * per - 1 ? "%d\n" : "%d ", i);
    out_str(o, "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n");
    for (int c = 0; c < cells; ++c) out_fmt(o, c % 16 == 15 || c == cells - 1 ? "%d\n" : "%d ", per * (c + 1));
    out_fmt(o, "        </DataArray>\n      </%s>\n", kind);
}

/* The end of a PolyData file: the appended section of a binary one. */
static void out_end(vtk_out *o)
{
    out_str(o, "  </PolyData>\n");
    if (o->binary) {
        out_str(o, "  <AppendedData encoding=\"raw\">\n   _");
        out_flush(o);
        if (o->app_len) fwrite(o->app, 1, o->app_len, o->f);
        out_str(o, "\n  </AppendedData>\n");
    }
    out_str(o, "</VTKFile>\n");
}

static void out_free(vtk_out *o)
{
    if (o->z_ready) deflateEnd(&o->z);
    free(o->app), free(o);
}

static cr_status out_close(vtk_out *o, const char *path, cr_error *err)
{
    out_flush(o);
    FILE *f = o->f;
    cr_status st = o->status;
    out_free(o);
    if (st != CR_OK) { /* nothing half-encoded replaces the previous file */
        char tmp[4200];
        fclose(f);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        remove(tmp);
        return cr_error_set(err, st, "%s: out of memory", path);
    }
    return close_file(f, path, err);
}

static vtk_out *out_open(const char *path, cr_vtk_format format, cr_error *err)
{
    vtk_out *o = malloc(sizeof *o);
    if (!o) {
        cr_error_set(err, CR_NO_MEMORY, "%s: out of memory", path);
        return NULL;
    }
    o->len = 0;
    o->binary = format == CR_VTK_BINARY || format == CR_VTK_COMPRESSED;
    o->compress = format == CR_VTK_COMPRESSED;
    o->status = CR_OK;
    o->z_ready = 0;
    o->app = NULL, o->app_len = o->app_cap = 0;
    if (!(o->f = open_for_writing(path, err))) {
        free(o);
        return NULL;
    }
    return o;
}

double cr_section_vtk_radius(const cr_rod_def *rod, double xi)
{
    xi = fmin(1.0, fmax(0.0, xi));
    cr_section_props sp;
    if (cr_section_eval(rod, xi, &sp) == CR_OK && fmax(sp.extent_y, sp.extent_z) > 0)
        return fmax(sp.extent_y, sp.extent_z);
    /* resultants: the solid circle of the same EI/EA (I/A = r²/4), with the larger EI */
    cr_section_resultants sr;
    if (cr_section_resultants_eval(rod, xi, &sr) != CR_OK || !(sr.EA > 0)) return 0;
    return 2 * sqrt(fmax(sr.EI_y, sr.EI_z) / sr.EA);
}

/* The sample values linearly interpolated in s to the nodes (constant beyond the first
 * and last sample): what a Tube coloured by them shows. */
static void samples_at_nodes(const double *node_s, int nn, const double *sample_s, const double *samples, int ns,
                             double *out)
{
    int j = 0;
    for (int i = 0; i < nn; ++i) {
        double s = node_s[i];
        while (j + 1 < ns && sample_s[j + 1] <= s) ++j;
        double w = 0;
        int a = j, b = j;
        if (ns > 1 && j + 1 < ns && s > sample_s[j] && sample_s[j + 1] > sample_s[j]) {
            b = j + 1;
            w = (s - sample_s[a]) / (sample_s[b] - sample_s[a]);
        }
        for (int k = 0; k < 12; ++k) out[12 * i + k] = (1 - w) * samples[12 * a + k] + w * samples[12 * b + k];
    }
}

static void split12(const double *all, int count, int which, double *out)
{
    for (int k = 0; k < count; ++k) memcpy(out + 3 * k, all + 12 * k + 3 * which, 3 * sizeof(double));
}

/* The polylines: one through the nodes of each rod (one rod: all nodes) and the CellData
 * "rod" (the rod's index) when there are several. */
static void out_rod_lines(vtk_out *o, const cr_sim *sim, double *tmp)
{
    int R = cr_sim_rod_count(sim), nn = cr_sim_node_count(sim);
    if (R <= 1) {
        if (nn > 1) out_cells(o, "Lines", 1, nn); /* one VTK_POLY_LINE through every node, in order */
        return;
    }
    if (o->binary) {
        int32_t *ids = malloc((size_t)(nn > R ? nn : R) * sizeof *ids);
        size_t at[2] = {(size_t)-1, (size_t)-1};
        if (!ids) {
            o->status = CR_NO_MEMORY;
        } else {
            for (int i = 0; i < nn; ++i) ids[i] = i;
            at[0] = vtk_append(o, ids, (size_t)nn * sizeof *ids);
            for (int r = 0; r < R; ++r) ids[r] = cr_sim_rod_first_node(sim, r + 1);
            at[1] = vtk_append(o, ids, (size_t)R * sizeof *ids);
            free(ids);
        }
        out_str(o, "      <Lines>\n");
        out_appended_tag(o, "        ", "Int32", "connectivity", 1, nn, at[0]);
        out_appended_tag(o, "        ", "Int32", "offsets", 1, R, at[1]);
        out_str(o, "      </Lines>\n");
    } else {
        out_str(o, "      <Lines>\n        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n");
        for (int i = 0; i < nn; ++i) out_fmt(o, i % 16 == 15 || i == nn - 1 ? "%d\n" : "%d ", i);
        out_str(o, "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">\n");
        for (int r = 0; r < R; ++r)
            out_fmt(o, r % 16 == 15 || r == R - 1 ? "%d\n" : "%d ", cr_sim_rod_first_node(sim, r + 1));
        out_str(o, "        </DataArray>\n      </Lines>\n");
    }
    out_str(o, "      <CellData Scalars=\"rod\">\n");
    for (int r = 0; r < R; ++r) tmp[r] = r;
    out_array(o, "        ", "rod", 1, tmp, R);
    out_str(o, "      </CellData>\n");
}

/* The definition of rod r: of an assembly's `rods` when given, else `rod` for rod 0. */
static const cr_rod_def *def_of(const cr_rod_def *rod, const cr_assembly_rod_def *rods, int r)
{
    return rods ? &rods[r].rod : r == 0 ? rod : NULL;
}

static cr_status write_rod_vtp(const char *path, const cr_sim *sim, const cr_rod_def *rod,
                               const cr_assembly_rod_def *rods, int stage, cr_vtk_format format, cr_error *err);

cr_status cr_write_rod_vtp_format(const char *path, const cr_sim *sim, const cr_rod_def *rod, int stage,
                                  cr_vtk_format format, cr_error *err)
{
    return write_rod_vtp(path, sim, rod, NULL, stage, format, err);
}

static cr_status write_rod_vtp(const char *path, const cr_sim *sim, const cr_rod_def *rod,
                               const cr_assembly_rod_def *rods, int stage, cr_vtk_format format, cr_error *err)
{
    int R = cr_sim_rod_count(sim);
    int nn = cr_sim_node_count(sim), ns = cr_sim_sample_count(sim);
    size_t big = (size_t)(nn > ns ? nn : ns) + (size_t)R + 1;
    double *node_s = malloc((size_t)(nn + 1) * sizeof(double));
    double *sample_s = malloc((size_t)(ns + 1) * sizeof(double));
    double *samples = malloc((size_t)(ns + 1) * 12 * sizeof(double));
    double *at_nodes = malloc((size_t)(nn + 1) * 12 * sizeof(double)); /* also room for nn cr_mat3 */
    double *tmp = malloc(big * 12 * sizeof(double));
    cr_status st = node_s && sample_s && samples && at_nodes && tmp
                       ? CR_OK
                       : cr_error_set(err, CR_NO_MEMORY, "%s: out of memory", path);
    vtk_out *o = st == CR_OK ? out_open(path, format, err) : NULL;
    if (!o) {
        free(node_s), free(sample_s), free(samples), free(at_nodes), free(tmp);
        return st != CR_OK ? st : err ? err->status : CR_IO;
    }
    cr_sim_get_node_s(sim, node_s);
    cr_sim_get_sample_s(sim, sample_s);
    cr_sim_get_samples(sim, samples);
    static const char *const names[4] = {"gamma", "kappa", "force", "moment"};

    out_header(o, sim, stage);
    /* the sample points' own values (element midpoints or Gauss points): one tuple per sample */
    if (ns > 0) {
        out_array(o, "      ", "sample_s", 1, sample_s, ns);
        for (int q = 0; q < 4; ++q) {
            char name[32];
            snprintf(name, sizeof name, "sample_%s", names[q]);
            split12(samples, ns, q, tmp);
            out_array(o, "      ", name, 3, tmp, ns);
        }
    }
    out_fmt(o,
            "    </FieldData>\n    <Piece NumberOfPoints=\"%d\" NumberOfVerts=\"0\" NumberOfLines=\"%d\" "
            "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n      <Points>\n",
            nn, nn > 1 ? (R > 1 ? R : 1) : 0);
    cr_sim_get_positions(sim, tmp);
    out_array(o, "        ", "position", 3, tmp, nn);
    out_str(o, "      </Points>\n");
    out_rod_lines(o, sim, tmp);
    if (R > 1 && !rods) rod = NULL; /* an assembly's radii need every rod's definition */
    out_str(o, rod || rods ? "      <PointData Scalars=\"radius\" Vectors=\"velocity\">\n"
                           : "      <PointData Scalars=\"s\" Vectors=\"velocity\">\n");
    out_array(o, "        ", "s", 1, node_s, nn);
    if (rod || rods) {
        for (int r = 0; r < R; ++r) { /* per rod: s/L of its own nodes */
            int a = cr_sim_rod_first_node(sim, r), b = cr_sim_rod_first_node(sim, r + 1);
            double L = b - a > 1 ? node_s[b - 1] : 1.0;
            for (int i = a; i < b; ++i)
                tmp[i] = cr_section_vtk_radius(def_of(rod, rods, r), L > 0 ? node_s[i] / L : 0.0);
        }
        out_array(o, "        ", "radius", 1, tmp, nn);
    }
    cr_sim_get_orientations(sim, tmp);
    out_array(o, "        ", "quaternion", 4, tmp, nn);
    /* the nodes' bases, once (at_nodes is free until the samples are interpolated into it) */
    cr_mat3 *frame = (cr_mat3 *)at_nodes;
    for (int i = 0; i < nn; ++i) frame[i] = cr_q_exp(cr_q_load(tmp + 4 * i));
    /* body axes as vectors, so ParaView glyphs can show the cross-section frames */
    for (int a = 0; a < 3; ++a) {
        for (int i = 0; i < nn; ++i) cr_v3_store(cr_m3_column(frame[i], a), tmp + 3 * i);
        char name[4] = {'d', (char)('1' + a), 0, 0};
        out_array(o, "        ", name, 3, tmp, nn);
    }
    for (int i = 0; i < nn; ++i) cr_v3_store(cr_sim_velocity(sim, i), tmp + 3 * i);
    out_array(o, "        ", "velocity", 3, tmp, nn);
    /* in I (the formulation reports it in the body basis), so that it can be drawn */
    for (int i = 0; i < nn; ++i) cr_v3_store(cr_m3_mulv(frame[i], cr_sim_angular_velocity(sim, i)), tmp + 3 * i);
    out_array(o, "        ", "angular_velocity", 3, tmp, nn);
    if (ns > 0) {
        for (int r = 0; r < R; ++r) { /* within each rod */
            int a = cr_sim_rod_first_node(sim, r), b = cr_sim_rod_first_node(sim, r + 1);
            int sa = cr_sim_rod_first_sample(sim, r), sb = cr_sim_rod_first_sample(sim, r + 1);
            if (sb > sa)
                samples_at_nodes(node_s + a, b - a, sample_s + sa, samples + 12 * sa, sb - sa, at_nodes + 12 * a);
        }
        for (int q = 0; q < 4; ++q) {
            split12(at_nodes, nn, q, tmp);
            out_array(o, "        ", names[q], 3, tmp, nn);
        }
    }
    cr_contact_sample cs;
    if (cr_sim_contact(sim, 0, &cs)) { /* obstacles: the contact force and state of every node */
        for (int i = 0; i < nn; ++i) cr_sim_contact(sim, i, &cs), cr_v3_store(cs.force, tmp + 3 * i);
        out_array(o, "        ", "contact_force", 3, tmp, nn);
        for (int i = 0; i < nn; ++i) cr_sim_contact(sim, i, &cs), tmp[i] = cs.state;
        out_array(o, "        ", "contact_state", 1, tmp, nn);
    }
    out_str(o, "      </PointData>\n    </Piece>\n");
    out_end(o);
    free(node_s), free(sample_s), free(samples), free(at_nodes), free(tmp);
    return out_close(o, path, err);
}

cr_status cr_write_rod_vtp(const char *path, const cr_sim *sim, const cr_rod_def *rod, int stage, cr_error *err)
{
    return cr_write_rod_vtp_format(path, sim, rod, stage, CR_VTK_BINARY, err);
}

cr_status cr_write_vtp(const char *path, const cr_sim *sim, cr_error *err)
{
    return cr_write_rod_vtp(path, sim, NULL, -1, err);
}

static cr_status write_bodies_vtp(const char *path, const cr_sim *sim, const cr_rod_def *rod,
                                  const cr_assembly_rod_def *rods, int stage, cr_vtk_format format, cr_error *err);

cr_status cr_write_bodies_vtp_format(const char *path, const cr_sim *sim, const cr_rod_def *rod, int stage,
                                     cr_vtk_format format, cr_error *err)
{
    return write_bodies_vtp(path, sim, rod, NULL, stage, format, err);
}

static cr_status write_bodies_vtp(const char *path, const cr_sim *sim, const cr_rod_def *rod,
                                  const cr_assembly_rod_def *rods, int stage, cr_vtk_format format, cr_error *err)
{
    int nb = cr_sim_body_count(sim);
    double *tmp = malloc((size_t)(nb + 1) * 4 * sizeof(double));
    if (!tmp) return cr_error_set(err, CR_NO_MEMORY, "%s: out of memory", path);
    vtk_out *o = out_open(path, format, err);
    if (!o) {
        free(tmp);
        return err ? err->status : CR_IO;
    }
    out_header(o, sim, stage);
    out_fmt(o,
            "    </FieldData>\n    <Piece NumberOfPoints=\"%d\" NumberOfVerts=\"%d\" NumberOfLines=\"0\" "
            "NumberOfStrips=\"0\" NumberOfPolys=\"0\">\n      <Points>\n",
            nb, nb);
    for (int j = 0; j < nb; ++j) {
        cr_vec3 x;
        cr_mat3 R;
        cr_sim_body_pose(sim, j, &x, &R);
        cr_v3_store(x, tmp + 3 * j);
    }
    out_array(o, "        ", "position", 3, tmp, nb);
    out_str(o, "      </Points>\n");
    if (nb > 0) out_cells(o, "Verts", nb, 1);
    out_str(o, "      <PointData Scalars=\"mass\">\n");
    for (int j = 0; j < nb; ++j) tmp[j] = j;
    out_array(o, "        ", "body", 1, tmp, nb);
    if (rods) /* an assembly's bodies, rod by rod */
        for (int r = 0, j = 0; r < cr_sim_rod_count(sim); ++r)
            for (int k = 0; k < rods[r].rod.rigid_body_count && j < nb; ++k)
                tmp[j++] = rods[r].rod.rigid_bodies[k].mass;
    else
        for (int j = 0; j < nb; ++j) tmp[j] = rod && j < rod->rigid_body_count ? rod->rigid_bodies[j].mass : 0.0;
    for (int j = 0; j < nb; ++j) /* the model's own (an assembly's free bodies) */
        if (isfinite(cr_sim_body_mass(sim, j))) tmp[j] = cr_sim_body_mass(sim, j);
    if (rod || rods) out_array(o, "        ", "mass", 1, tmp, nb);
    for (int j = 0; j < nb; ++j) {
        cr_vec3 x;
        cr_mat3 R;
        cr_sim_body_pose(sim, j, &x, &R);
        cr_q_store(cr_q_from_matrix(R), tmp + 4 * j);
    }
    out_array(o, "        ", "quaternion", 4, tmp, nb);
    for (int a = 0; a < 3; ++a) {
        for (int j = 0; j < nb; ++j) {
            cr_vec3 x;
            cr_mat3 R;
            cr_sim_body_pose(sim, j, &x, &R);
            cr_v3_store(cr_m3_column(R, a), tmp + 3 * j);
        }
        char name[4] = {'d', (char)('1' + a), 0, 0};
        out_array(o, "        ", name, 3, tmp, nb);
    }
    /* velocities as the nodes' (velocity, and angular_velocity in inertial components); NaN for
     * a body whose formulation does not report them */
    for (int j = 0; j < nb; ++j) {
        cr_vec3 v;
        cr_sim_body_velocity(sim, j, &v, NULL);
        cr_v3_store(v, tmp + 3 * j);
    }
    out_array(o, "        ", "velocity", 3, tmp, nb);
    for (int j = 0; j < nb; ++j) {
        cr_vec3 x, w;
        cr_mat3 R;
        cr_sim_body_pose(sim, j, &x, &R);
        cr_sim_body_velocity(sim, j, NULL, &w);
        cr_v3_store(cr_m3_mulv(R, w), tmp + 3 * j);
    }
    out_array(o, "        ", "angular_velocity", 3, tmp, nb);
    out_str(o, "      </PointData>\n    </Piece>\n");
    out_end(o);
    free(tmp);
    return out_close(o, path, err);
}

cr_status cr_write_bodies_vtp(const char *path, const cr_sim *sim, const cr_rod_def *rod, int stage, cr_error *err)
{
    return cr_write_bodies_vtp_format(path, sim, rod, stage, CR_VTK_BINARY, err);
}

cr_status cr_write_snapshot(const char *dir, int index, const cr_sim *sim, const cr_rod_def *rod, int stage,
                            cr_error *err)
{
    return cr_write_snapshot_format(dir, index, sim, rod, stage, CR_VTK_BINARY, err);
}

cr_status cr_write_snapshot_format(const char *dir, int index, const cr_sim *sim, const cr_rod_def *rod, int stage,
                                   cr_vtk_format format, cr_error *err)
{
    return cr_write_snapshot_rods(dir, index, sim, rod, NULL, stage, format, err);
}

cr_status cr_write_snapshot_rods(const char *dir, int index, const cr_sim *sim, const cr_rod_def *rod,
                                 const cr_assembly_rod_def *rods, int stage, cr_vtk_format format, cr_error *err)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/rod_%04d.vtp", dir, index) >= (int)sizeof path)
        return cr_error_set(err, CR_IO, "%s: path too long", dir);
    cr_status st = write_rod_vtp(path, sim, rod, rods, stage, format, err);
    if (st != CR_OK || cr_sim_body_count(sim) == 0) return st;
    if (snprintf(path, sizeof path, "%s/bodies_%04d.vtp", dir, index) >= (int)sizeof path)
        return cr_error_set(err, CR_IO, "%s: path too long", dir);
    return write_bodies_vtp(path, sim, rod, rods, stage, format, err);
}

static void out_xml_text(vtk_out *o, const char *s)
{
    for (; *s; ++s) {
        switch (*s) {
        case '&':
            out_str(o, "&amp;");
            break;
        case '<':
            out_str(o, "&lt;");
            break;
        case '>':
            out_str(o, "&gt;");
            break;
        case '"':
            out_str(o, "&quot;");
            break;
        default: {
            char c[2] = {*s, 0};
            out_str(o, c);
        }
        }
    }
}

cr_status cr_write_pvd_entries(const char *path, const cr_pvd_entry *entries, int count, cr_error *err)
{
    vtk_out *o = out_open(path, CR_VTK_ASCII, err);
    if (!o) return err ? err->status : CR_IO;
    out_str(o, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n");
    for (int k = 0; k < count; ++k) {
        char t[40];
        char *q = format_g12(t, entries[k].timestep);
        if (q)
            *q = 0;
        else
            snprintf(t, sizeof t, "%.12g", entries[k].timestep);
        out_fmt(o, "    <DataSet timestep=\"%s\" part=\"%d\"", t, entries[k].part);
        if (entries[k].name) {
            out_str(o, " name=\"");
            out_xml_text(o, entries[k].name);
            out_str(o, "\"");
        }
        out_str(o, " file=\"");
        out_xml_text(o, entries[k].file);
        out_str(o, "\"/>\n");
    }
    out_str(o, "  </Collection>\n</VTKFile>\n");
    return out_close(o, path, err);
}

cr_status cr_write_pvd(const char *path, const char *const *files, const double *times, int count, cr_error *err)
{
    cr_pvd_entry *e = malloc((size_t)(count > 0 ? count : 1) * sizeof *e);
    if (!e) return cr_error_set(err, CR_NO_MEMORY, "%s: out of memory", path);
    for (int k = 0; k < count; ++k) e[k] = (cr_pvd_entry){.timestep = times[k], .part = 0, .file = files[k]};
    cr_status st = cr_write_pvd_entries(path, e, count, err);
    free(e);
    return st;
}

cr_status cr_write_snapshot_pvd(const char *path, const double *times, int count, int bodies, cr_error *err)
{
    int per = bodies ? 2 : 1;
    cr_pvd_entry *e = malloc((size_t)(count > 0 ? count : 1) * per * sizeof *e);
    char(*names)[32] = malloc((size_t)(count > 0 ? count : 1) * per * sizeof *names);
    if (!e || !names) {
        free(e), free(names);
        return cr_error_set(err, CR_NO_MEMORY, "%s: out of memory", path);
    }
    for (int k = 0; k < count; ++k) {
        snprintf(names[per * k], sizeof names[0], "rod_%04d.vtp", k);
        e[per * k] = (cr_pvd_entry){.timestep = times[k], .part = 0, .file = names[per * k], .name = "rod"};
        if (bodies) {
            snprintf(names[per * k + 1], sizeof names[0], "bodies_%04d.vtp", k);
            e[per * k + 1] =
                (cr_pvd_entry){.timestep = times[k], .part = 1, .file = names[per * k + 1], .name = "bodies"};
        }
    }
    cr_status st = cr_write_pvd_entries(path, e, count * per, err);
    free(e), free(names);
    return st;
}
