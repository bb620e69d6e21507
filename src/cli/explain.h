/*
 * explain.h - what `posenc explain KIND` asks of a kind (its
 * pe_gen_kind.explain, called after pe_gen_build with g->explain set):
 *   rep    the report (io/report.h), written as text or json;
 *   table  the csv table: a list of flat records in a report of its own
 *          (one per frequency, head, ...), beside rep, not in it;
 *   panel  the figure: a line chart per panel (a layer type), with its
 *          series and shaded regions, drawn when -o names an image.
 * cmd_explain.c owns the struct: pe_explain_init, the kind fills it,
 * cmd_explain writes one of them, pe_explain_free.
 *
 * The builders below turn a kind's core objects into those; each kind's
 * hook (in its gen_<kind>.c, where its state is known) calls one.
 */
#ifndef PE_EXPLAIN_H
#define PE_EXPLAIN_H

#include <stddef.h>
#include <stdint.h>

#include "cli/opt.h"
#include "core/alibi.h"
#include "core/err.h"
#include "core/rope.h"
#include "core/sinusoidal.h"
#include "io/figure.h"
#include "io/hfconfig.h"
#include "io/report.h"

#define PE_EXPLAIN_PANELS 8
/* rows of a report's per-frequency (per-head) table, at most */
#define PE_EXPLAIN_MAX_ROWS ((size_t)1 << 16)
#define PE_EXPLAIN_SERIES 4
#define PE_EXPLAIN_SHADES 8

struct pe_explain_panel {
	char title[PE_HF_NAME_MAX + 16];
	struct pe_chart chart;
	struct pe_series series[PE_EXPLAIN_SERIES];
	struct pe_shade shades[PE_EXPLAIN_SHADES];
	char labels[PE_EXPLAIN_SHADES][24];
	double *data;			/* the series' x and y (malloc'd) */
	size_t npoints;			/* per series */
};

struct pe_explain {
	struct pe_report *rep, *csv;
	struct pe_rnode *root;		/* rep's */
	struct pe_rnode *table;		/* csv's list */
	struct pe_explain_panel panel[PE_EXPLAIN_PANELS];
	size_t npanels;
	char title[192];		/* the figure's */
	const char *xlabel, *ylabel;
};

/* Returns 0, or -1 (PE_ERR_NOMEM). */
int pe_explain_init(struct pe_explain *x, struct pe_error *err);
void pe_explain_free(struct pe_explain *x);

/* A new panel with room for nseries series of n points each (x then y,
 * NaN-filled); NULL when out of memory (err set) or past the last. */
struct pe_explain_panel *pe_explain_panel(struct pe_explain *x, size_t nseries, size_t n,
					  struct pe_error *err);

/* Point k of series s of p: (xv, yv). */
void pe_explain_point(struct pe_explain_panel *p, size_t s, size_t k, double xv, double yv);

/* Columns first..end-1 as text: "767", "640-767", or "none" (end <= first). */
void pe_explain_columns(char *buf, size_t n, uint64_t first, uint64_t end);

/* What explain rope reads of generate rope's build (cli/gen_rope.c). */
struct pe_explain_rope {
	const char *config;			/* --from-config, or NULL */
	const struct pe_hfconfig *cfg;		/* its contents, or NULL */
	const struct pe_rope *rope;		/* n built types */
	size_t n;
	int first;				/* cfg->rope index of rope[0] */
	const uint64_t *head_dim;		/* per built type */
	const struct pe_args *args;		/* which options were given */
	uint64_t positions;			/* -n as resolved */
	int positions_given;
};

int pe_explain_rope(struct pe_explain *x, const struct pe_explain_rope *in,
		    struct pe_error *err);
int pe_explain_sinusoidal(struct pe_explain *x, const struct pe_sinusoidal *s,
			  struct pe_error *err);
int pe_explain_alibi(struct pe_explain *x, const struct pe_alibi *a, struct pe_error *err);

#endif
