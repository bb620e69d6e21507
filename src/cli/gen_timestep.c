/* generate timestep: options to core/timestep.h parameters. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli/gen.h"
#include "cli/tablein.h"
#include "core/parse.h"
#include "core/timestep.h"
#include "io/values.h"

struct ts_opts {
	int preset, order, tdtype;
	const char *timesteps, *file;
	double shift, scale, max_period, factor;
};

#define O(f) offsetof(struct ts_opts, f)
/* timesteps a table may have: 2^32 (a range's are counted, a file's read) */
#define MAX_TIMESTEPS ((uint64_t)1 << 32)
#define MAX_LISTED ((size_t)1 << 16)

/* in the order of --order's names: flip_sin_to_cos false, true */
static const char *const orders[] = { "sin-cos", "cos-sin", NULL };

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Timestep (diffusers' get_timestep_embedding; -d is the width):") },
	{ PE_CHOICE("preset", 0, "NAME", O(preset), pe_ts_preset_names,
		    "ddpm (default), sd, dit, pixart, sd3, flux, wan,\n"
		    "auraflow, qwen-image: the model's Timesteps") },
	{ PE_TEXT("timesteps", 0, "A:B[:S]|LIST", O(timesteps),
		  "the timesteps: A, A+S, ... below B (S default 1, in\n"
		  "double), or a list such as 999,500,1 (default 0..n-1)") },
	{ PE_FILE("timesteps-file", 0, "FILE", O(file),
		  "the timesteps from a file: text (numbers separated by\n"
		  "blanks, commas or lines), npy or safetensors") },
	{ PE_CHOICE("order", 0, "O", O(order), orders,
		    "sin-cos ([sin | cos]) or cos-sin (flip_sin_to_cos)") },
	{ PE_REAL("freq-shift", 0, "S", O(shift), PE_REAL_ANY,
		  "downscale_freq_shift: f_k = P^(-k/(D/2 - S))") },
	{ PE_REAL("angle-scale", 0, "C", O(scale), PE_REAL_ANY,
		  "diffusers' scale: the angles are C t f_k (default 1)"),
	  .param = "scale" },
	{ PE_REAL("max-period", 0, "P", O(max_period), PE_REAL_POSITIVE,
		  "max_period, default 10000") },
	{ PE_REAL("time-factor", 0, "F", O(factor), PE_REAL_ANY,
		  "the model multiplies t by F first, in its dtype\n"
		  "(flux: 1000)") },
	{ PE_CHOICE("timestep-dtype", 0, "T", O(tdtype), pe_store_names,
		    "the dtype the model holds t in before the embedding:\n"
		    "float32 (default), float16, bfloat16 (flux, qwen-image),\n"
		    "float64 (kept whole in the exact table)") },
	{ 0 }
};

struct ts_state {
	struct pe_timestep ts;
	double *t;
};

static void free_ts(void *p)
{
	struct ts_state *st = p;

	pe_timestep_free(&st->ts);
	free(st->t);
	free(st);
}

/* --timesteps: A:B[:S] or a list */
static int parse_timesteps(const char *s, struct pe_timestep_params *p, double **list,
			   struct pe_error *err)
{
	char buf[3][64];
	const char *q = s, *c;
	double v[3] = { 0, 0, 1 }, span;
	size_t k = 0, len, n;

	if (!strchr(s, ':')) {
		if (pe_parse_double_list(s, MAX_LISTED, list, &n) != 0)
			return pe_fail(err, PE_ERR_USAGE,
				       "--timesteps must be A:B[:S] or a comma-separated list of numbers, got '%s'",
				       s);
		p->t = *list;
		p->n = n;
		return 0;
	}
	for (;;) {
		c = strchr(q, ':');
		len = c ? (size_t)(c - q) : strlen(q);
		if (k == 3 || len == 0 || len >= sizeof buf[0])
			goto bad;
		memcpy(buf[k], q, len);
		buf[k][len] = '\0';
		if (pe_parse_double(buf[k], &v[k]) != 0)
			goto bad;
		k++;
		if (!c)
			break;
		q = c + 1;
	}
	if (k < 2)
		goto bad;
	if (v[2] == 0)
		return pe_fail(err, PE_ERR_USAGE, "--timesteps %s: the step must not be 0", s);
	span = ceil((v[1] - v[0]) / v[2]);
	if (!(span >= 1))
		return pe_fail(err, PE_ERR_USAGE, "--timesteps %s is empty (A:B[:S] runs from A towards B, B excluded)",
			       s);
	if (!(span <= (double)MAX_TIMESTEPS))
		return pe_fail(err, PE_ERR_USAGE, "--timesteps %s has more than 2^32 timesteps", s);
	p->t = NULL;
	p->start = v[0];
	p->step = v[2];
	p->n = (uint64_t)span;
	return 0;
bad:
	return pe_fail(err, PE_ERR_USAGE,
		       "--timesteps must be A:B[:S] with numbers A, B, S (or a list), got '%s'", s);
}

static void record(struct pe_gen *g, const struct ts_opts *o, const struct pe_timestep_params *p)
{
	struct pe_meta *m = &g->meta;

	pe_meta_str(m, "kind", "timestep");
	pe_meta_str(m, "preset", pe_ts_preset_names[p->preset]);
	pe_meta_int(m, "timesteps", (int64_t)p->n);
	if (o->file)
		pe_meta_str(m, "timesteps_file", o->file);
	else if (o->timesteps)
		pe_meta_str(m, "timesteps_given", o->timesteps);
	pe_meta_int(m, "dim", (int64_t)p->dim);
	pe_meta_bool(m, "flip_sin_to_cos", p->flip);
	pe_meta_num(m, "downscale_freq_shift", p->shift);
	pe_meta_num(m, "scale", p->scale);
	pe_meta_num(m, "max_period", p->max_period);
	pe_meta_num(m, "time_factor", p->time_factor);
	pe_meta_str(m, "timestep_dtype", pe_store_names[p->tdtype]);
	if (p->float32) {
		pe_meta_str(m, "precision", "float32 (diffusers' get_timestep_embedding)");
		pe_gen_torch_meta(m, &p->torch);
	}
}

static int build(struct pe_gen *g, void *opts, struct pe_error *err)
{
	struct ts_opts *o = opts;
	struct pe_timestep_params p;
	struct ts_state *st;
	size_t n;

	if (o->timesteps && o->file)
		return pe_fail(err, PE_ERR_USAGE, "--timesteps and --timesteps-file are two sources of timesteps: give one");
	if ((o->timesteps || o->file) && pe_gen_given(g, &g->positions))
		return pe_fail(err, PE_ERR_USAGE, "--positions does not apply with --%s (the timesteps give the rows)",
			       o->file ? "timesteps-file" : "timesteps");
	pe_timestep_defaults(&p, (enum pe_ts_preset)o->preset);
	if (pe_gen_given(g, &g->dim))
		p.dim = g->dim;
	if (pe_gen_given(g, &g->positions))
		p.n = g->positions;
	if (pe_gen_given(g, &o->order))
		p.flip = o->order == 1;
	if (pe_gen_given(g, &o->shift))
		p.shift = o->shift;
	if (pe_gen_given(g, &o->scale))
		p.scale = o->scale;
	if (pe_gen_given(g, &o->max_period))
		p.max_period = o->max_period;
	if (pe_gen_given(g, &o->factor))
		p.time_factor = o->factor;
	if (pe_gen_given(g, &o->tdtype))
		p.tdtype = (enum pe_store)o->tdtype;
	p.float32 = g->float32;
	p.torch = g->torch;

	st = calloc(1, sizeof *st);
	if (!st)
		return pe_fail(err, PE_ERR_NOMEM, "out of memory");
	g->state = st;
	g->free_state = free_ts;
	if (o->timesteps && parse_timesteps(o->timesteps, &p, &st->t, err) != 0)
		return -1;
	if (o->file) {
		if (pe_read_values(o->file, NULL, (size_t)MAX_TIMESTEPS, PE_TABLE_MAX_BYTES, &st->t, &n,
				   NULL, err) != 0)
			return -1;
		p.t = st->t;
		p.n = n;
	}
	if (p.n > PE_MAX_ELEMS / p.dim)
		return pe_fail(err, PE_ERR_USAGE, "a table of %llu x %llu values is too large to address",
			       (unsigned long long)p.n, (unsigned long long)p.dim);
	if (pe_timestep_init(&st->ts, &p, err) != 0 || pe_timestep_tensor(&st->ts, &g->tensor[0], err) != 0)
		return -1;
	g->nt = 1;
	g->ylabel = "timestep";
	record(g, o, &p);
	return 0;
}

/* diffusers' float32 pipeline, every preset */
static int float32(const void *opts)
{
	(void)opts;
	return 1;
}

const struct pe_gen_kind pe_kind_timestep = {
	"timestep", "diffusion timestep embedding (diffusers: DDPM, SD, DiT, FLUX, ...)",
	rows, sizeof(struct ts_opts), build, float32, NULL
};
