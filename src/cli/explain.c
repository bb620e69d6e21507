/*
 * posenc explain's parts that are not rope's: the struct every kind fills
 * (explain.h), and the sinusoidal and ALiBi reports, read off their core
 * objects (the frequencies and slopes generate uses).
 */
#include "cli/explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PE_PI 3.141592653589793

int pe_explain_init(struct pe_explain *x, struct pe_error *err)
{
	memset(x, 0, sizeof *x);
	x->rep = pe_report_new();
	x->csv = pe_report_new();
	x->root = pe_report_root(x->rep);
	if (!x->rep || !x->csv || !(x->table = pe_rep_list(pe_report_root(x->csv), "table")))
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	return 0;
}

void pe_explain_free(struct pe_explain *x)
{
	size_t i;

	for (i = 0; i < x->npanels; i++)
		free(x->panel[i].data);
	pe_report_free(x->rep);
	pe_report_free(x->csv);
	memset(x, 0, sizeof *x);
}

struct pe_explain_panel *pe_explain_panel(struct pe_explain *x, size_t nseries, size_t n,
					  struct pe_error *err)
{
	struct pe_explain_panel *p;
	size_t s, k;

	if (x->npanels == PE_EXPLAIN_PANELS || nseries > PE_EXPLAIN_SERIES) {
		pe_fail(err, PE_ERR_USAGE, "at most %d panels of %d curves in one figure",
			PE_EXPLAIN_PANELS, PE_EXPLAIN_SERIES);
		return NULL;
	}
	p = &x->panel[x->npanels];
	memset(p, 0, sizeof *p);
	p->data = malloc((n ? n : 1) * 2 * (nseries ? nseries : 1) * sizeof *p->data);
	if (!p->data) {
		pe_fail(err, PE_ERR_NOMEM, "out of memory");
		return NULL;
	}
	x->npanels++;
	p->npoints = n;
	for (s = 0; s < nseries; s++) {
		p->series[s].x = p->data + 2 * s * n;
		p->series[s].y = p->data + (2 * s + 1) * n;
		p->series[s].n = n;
		for (k = 0; k < 2 * n; k++)
			p->data[2 * s * n + k] = NAN;
	}
	p->chart.series = p->series;
	p->chart.nseries = nseries;
	p->chart.shades = p->shades;
	return p;
}

void pe_explain_point(struct pe_explain_panel *p, size_t s, size_t k, double xv, double yv)
{
	p->data[2 * s * p->npoints + k] = xv;
	p->data[(2 * s + 1) * p->npoints + k] = yv;
}

void pe_explain_columns(char *buf, size_t n, uint64_t first, uint64_t end)
{
	if (end <= first)
		snprintf(buf, n, "none");
	else if (end - first == 1)
		snprintf(buf, n, "%llu", (unsigned long long)first);
	else
		snprintf(buf, n, "%llu-%llu", (unsigned long long)first, (unsigned long long)(end - 1));
}

int pe_explain_sinusoidal(struct pe_explain *x, const struct pe_sinusoidal *s,
			  struct pe_error *err)
{
	const struct pe_sinusoidal_params *p = &s->p;
	struct pe_rnode *o = x->root, *list, *e;
	struct pe_explain_panel *panel;
	int inter = s->layout == PE_LAYOUT_INTERLEAVED;
	uint64_t n = p->positions;
	char zero[48];
	size_t k;

	if (s->nfreq > PE_EXPLAIN_MAX_ROWS)
		return pe_fail(err, PE_ERR_USAGE, "explain reports at most %zu frequencies, this table has %zu",
			       PE_EXPLAIN_MAX_ROWS, s->nfreq);
	pe_rep_str(o, "kind", "sinusoidal");
	pe_rep_str(o, "preset", "%s", pe_sin_preset_name(p->preset));
	pe_rep_str(o, "layout", "%s", inter ? "interleaved" : "half");
	pe_rep_int(o, "dim", (int64_t)p->dim);
	pe_rep_int(o, "positions", (int64_t)n);
	pe_rep_int(o, "offset", p->offset);
	switch (p->preset) {
	case PE_SIN_T2T:
		pe_rep_num(o, "min_timescale", p->min_timescale);
		pe_rep_num(o, "max_timescale", p->max_timescale);
		pe_rep_str(o, "formula", "min_timescale exp(-k ln(max_timescale / min_timescale) / max(h - 1, 1)), h = %zu",
			   (size_t)(p->dim / 2));
		break;
	case PE_SIN_FAIRSEQ:
		pe_rep_num(o, "base", p->base);
		pe_rep_str(o, "formula", "exp(-k ln(base) / (h - 1)), h = %zu", (size_t)(p->dim / 2));
		if (p->padding_idx >= 0)
			pe_rep_int(o, "padding_idx", p->padding_idx);
		break;
	default:
		pe_rep_num(o, "base", p->base);
		pe_rep_str(o, "formula", "base^(-2k/%llu)", (unsigned long long)p->dim);
		break;
	}
	pe_rep_str(o, "precision", "%s", p->float32 ? "float32" : "exact");
	pe_explain_columns(zero, sizeof zero, s->nsin + s->ncos, p->dim);
	pe_rep_str(o, "zero_columns", "%s", zero);
	list = pe_rep_list(o, "frequencies");
	panel = pe_explain_panel(x, 1, s->nfreq, err);
	if (!panel)
		return -1;
	snprintf(x->title, sizeof x->title, "sinusoidal %s: wavelength per frequency, D = %llu",
		 pe_sin_preset_name(p->preset), (unsigned long long)p->dim);
	x->xlabel = "frequency k";
	x->ylabel = "wavelength (positions)";
	panel->chart.logy = 1;
	panel->chart.legend = PE_LEGEND_LOWER_RIGHT;
	for (k = 0; k < s->nfreq; k++) {
		double f = pe_sinusoidal_freq(s, k), wl = f > 0 ? 2 * PE_PI / f : (double)INFINITY;
		int64_t sc = (int64_t)(inter ? 2 * k : k);
		int64_t cc = k < s->ncos ? (int64_t)(inter ? 2 * k + 1 : s->nsin + k) : -1;
		struct pe_rnode *rows[2];
		int r;

		rows[0] = pe_rep_record(list, NULL);
		rows[1] = pe_rep_record(x->table, NULL);
		for (r = 0; r < 2; r++) {
			e = rows[r];
			pe_rep_int(e, "frequency", (int64_t)k);
			pe_rep_int(e, "sin_col", sc);
			if (cc >= 0)
				pe_rep_int(e, "cos_col", cc);
			else
				pe_rep_null(e, "cos_col");
			pe_rep_num(e, "inv_freq", f);
			if (p->float32 && s->div32)
				pe_rep_f32(e, "inv_freq_f32", s->div32[k]);
			pe_rep_num(e, "wavelength", wl);
			pe_rep_num(e, "rotations", (double)n * f / (2 * PE_PI));
		}
		pe_explain_point(panel, 0, k, (double)k, wl);
	}
	return 0;
}

int pe_explain_alibi(struct pe_explain *x, const struct pe_alibi *a, struct pe_error *err)
{
	static const char *const forms[] = { "causal", "symmetric", "bloom" };
	const struct pe_alibi_params *p = &a->p;
	struct pe_rnode *o = x->root, *list, *e;
	struct pe_explain_panel *panel;
	uint64_t H = p->heads, c = 1, k;

	if (H > PE_EXPLAIN_MAX_ROWS)
		return pe_fail(err, PE_ERR_USAGE, "explain reports at most %zu heads, got %llu (generate alibi --table slopes writes them all)",
			       PE_EXPLAIN_MAX_ROWS, (unsigned long long)H);
	while (c * 2 <= H)
		c *= 2;
	pe_rep_str(o, "kind", "alibi");
	pe_rep_int(o, "heads", (int64_t)H);
	pe_rep_num(o, "alibi_bias_max", p->bias_max);
	pe_rep_str(o, "form", "%s", forms[p->form]);
	if (c == H)
		pe_rep_str(o, "rule", "a power of two: slope k = 2^(-%g (k + 1) / %llu)", p->bias_max,
			   (unsigned long long)H);
	else
		pe_rep_str(o, "rule", "not a power of two: the %llu slopes of %llu heads (heads 0-%llu), then every other slope of %llu heads, 2^(-%g (2i + 1) / %llu) (heads %llu-%llu)",
			   (unsigned long long)c, (unsigned long long)c, (unsigned long long)(c - 1),
			   (unsigned long long)(2 * c), p->bias_max, (unsigned long long)(2 * c),
			   (unsigned long long)c, (unsigned long long)(H - 1));
	list = pe_rep_list(o, "slopes");
	panel = pe_explain_panel(x, 1, (size_t)H, err);
	if (!panel)
		return -1;
	snprintf(x->title, sizeof x->title, "alibi: slope per head, %llu heads", (unsigned long long)H);
	x->xlabel = "head";
	x->ylabel = "slope";
	panel->chart.logy = 1;
	for (k = 0; k < H; k++) {
		double m = (double)a->slope[k];
		struct pe_rnode *rows[2] = { pe_rep_record(list, NULL), pe_rep_record(x->table, NULL) };
		int r;

		for (r = 0; r < 2; r++) {
			e = rows[r];
			pe_rep_int(e, "head", (int64_t)k);
			pe_rep_num(e, "slope", m);
			pe_rep_num(e, "log2_slope", (double)log2l(a->slope[k]));
			pe_rep_str(e, "from", "%s", k < c ? "base" : "interleaved");
		}
		pe_explain_point(panel, 0, k, (double)k, m);
	}
	return 0;
}
