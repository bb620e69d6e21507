/*
 * Tables read a block of rows at a time (read.h): the format's locate
 * function makes every check its parser makes, then rows are decoded from
 * the mapping as they are asked for.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "io/read.h"

int pe_table_stream_open(struct pe_table_stream *s, const char *path, size_t max_bytes,
			 const struct pe_read_opts *o, struct pe_error *err)
{
	static const struct pe_read_opts none = { .format = PE_IN_AUTO };
	struct pe_read_opts named;
	struct pe_table_loc loc;
	int rc;

	memset(s, 0, sizeof *s);
	o = pe_read_opts_for_path(path, o ? o : &none, &named);
	if (pe_table_input_open(&s->in, path, max_bytes, o, err) != 0) {
		s->name = s->in.name;
		return -1;
	}
	s->name = s->in.name;
	rc = pe_table_locate(s->in.data, s->in.len, s->name, o, &loc, &s->info, err);
	if (rc < 0 || pe_input_intact(&s->in, err) != 0)
		return -1;
	if (rc > 0 || loc.fortran) {
		/* rows that are not runs of bytes: the parser's matrix */
		if (pe_table_parse(s->in.data, s->in.len, s->name, o, &s->m, &s->info, err) != 0 ||
		    pe_input_intact(&s->in, err) != 0)
			return -1;
		s->whole = 1;
		s->rows = s->m.rows;
		s->cols = s->m.cols;
		return 0;
	}
	s->rows = loc.rows;
	s->cols = loc.cols;
	s->off = loc.off;
	s->elem = (int)loc.elem;
	s->big = loc.big;
	return 0;
}

/*
 * The pages of the rows just decoded leave the mapping, and with them the
 * neighbours a fault maps at once: fault-around maps 64 KiB, and a large
 * folio of the page cache (Linux 6) up to 2 MiB, aligned; readahead fills
 * the page cache, not the mapping.  So a pass over every row, or a sample
 * of rows anywhere, holds a few blocks of the file (measured: 625 rows
 * spread over a 100 MB file held 50 MB mapped with a 64 KiB window, 0.1 MB
 * with this one).  Another thread reading the same pages meanwhile faults
 * them in again.
 */
#define AROUND ((size_t)2 << 20)

static void let_go(const struct pe_table_stream *s, size_t off, size_t len)
{
	size_t a = off / AROUND * AROUND, b = off + len;

	b = b / AROUND * AROUND + (b % AROUND ? AROUND : 0);
	if (b > s->in.len)
		b = s->in.len;
	if (b > a)
		pe_input_release(&s->in, a, b - a);
}

int pe_table_stream_rows(const struct pe_table_stream *s, uint64_t r0, size_t n, float *out,
			 struct pe_error *err)
{
	const unsigned char *src;
	size_t esz, k;
	float one;

	if (r0 > s->rows || n > s->rows - r0)
		return pe_fail(err, PE_ERR_DATA, "%s: rows %llu..%llu asked of %llu", s->name,
			       (unsigned long long)r0, (unsigned long long)(r0 + n),
			       (unsigned long long)s->rows);
	if (s->whole) {
		memcpy(out, s->m.v + (size_t)r0 * (size_t)s->cols, n * (size_t)s->cols * sizeof *out);
		return 0;
	}
	esz = pe_elem_size((enum pe_elem)s->elem);
	src = s->in.data + s->off + (size_t)r0 * (size_t)s->cols * esz;
	if (pe_elems_to_float(out, 1, src, n * (size_t)s->cols, (enum pe_elem)s->elem, s->big) == 0) {
		let_go(s, (size_t)(src - s->in.data), n * (size_t)s->cols * esz);
		return pe_input_intact(&s->in, err);
	}
	for (k = 0; k + 1 < n * (size_t)s->cols; k++)
		if (pe_elems_to_float(&one, 1, src + k * esz, 1, (enum pe_elem)s->elem, s->big))
			break;
	return pe_fail(err, PE_ERR_DATA, "%s: row %llu has values too large for float32 (beyond 3.4e38)",
		       s->name, (unsigned long long)(r0 + k / (size_t)s->cols));
}

void pe_table_stream_close(struct pe_table_stream *s)
{
	pe_matrix_free(&s->m);
	pe_input_close(&s->in);
}
