#include "io/hfconfig.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "io/input.h"
#include "io/read_priv.h"

#define COUNT_MAX ((double)((uint64_t)1 << 40))
#define LIST_MAX ((size_t)1 << 22)

enum { NUM_ANY, NUM_POSITIVE, NUM_COUNT, NUM_NONNEG };

struct ctx {
	const char *name;	/* file name for messages */
	struct pe_error *err;
};

static int bad(struct ctx *c, const char *dict, const char *key, const char *want, const cJSON *v)
{
	char got[200];

	pe_json_text(v, got, sizeof got);
	return pe_fail(c->err, PE_ERR_DATA, "%s: %s%s%s must be %s, got '%s'", c->name,
		       dict ? dict : "", dict ? "." : "", key, want, got);
}

static int missing(struct ctx *c, const char *dict, const char *key, const char *why)
{
	return pe_fail(c->err, PE_ERR_DATA, "%s: %s%s%s is missing (%s)", c->name, dict ? dict : "",
		       dict ? "." : "", key, why);
}

static const cJSON *item(const cJSON *obj, const char *key)
{
	const cJSON *v;

	if (!obj)
		return NULL;
	v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return v && !cJSON_IsNull(v) ? v : NULL;
}

/* A number of obj[key]; absent (or null) leaves *out and returns 0 with
 * *present = 0. */
static int number(struct ctx *c, const cJSON *obj, const char *dict, const char *key, int kind,
		  double *out, int *present)
{
	const cJSON *v = item(obj, key);
	double d;

	if (present)
		*present = 0;
	if (!v)
		return 0;
	if (!cJSON_IsNumber(v))
		return bad(c, dict, key, "a number", v);
	if (!isfinite(v->valuedouble))
		return bad(c, dict, key, "a finite number", v);
	d = v->valuedouble;
	switch (kind) {
	case NUM_POSITIVE:
		if (!(d > 0))
			return bad(c, dict, key, "a positive number", v);
		break;
	case NUM_NONNEG:
		if (!(d >= 0))
			return bad(c, dict, key, "a non-negative number", v);
		break;
	case NUM_COUNT:
		if (!(d >= 1) || d > COUNT_MAX || d != floor(d))
			return bad(c, dict, key, "a positive integer (at most 2^40)", v);
		break;
	default:
		break;
	}
	*out = d;
	if (present)
		*present = 1;
	return 0;
}

static int count(struct ctx *c, const cJSON *obj, const char *dict, const char *key,
		 uint64_t *out)
{
	double d = 0;
	int present;

	if (number(c, obj, dict, key, NUM_COUNT, &d, &present) != 0)
		return -1;
	if (present)
		*out = (uint64_t)d;
	return 0;
}

static int list(struct ctx *c, const cJSON *obj, const char *dict, const char *key,
		double **out, size_t *n)
{
	const cJSON *v = item(obj, key), *e;
	size_t k = 0, len;

	if (!v)
		return 0;
	if (!cJSON_IsArray(v))
		return bad(c, dict, key, "a list of numbers", v);
	len = (size_t)cJSON_GetArraySize(v);
	if (len == 0 || len > LIST_MAX)
		return bad(c, dict, key, "a non-empty list of numbers", v);
	*out = malloc(len * sizeof **out);
	if (!*out)
		return pe_fail(c->err, PE_ERR_NOMEM, "out of memory");
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || !(e->valuedouble > 0)) {
			char what[64];

			snprintf(what, sizeof what, "a list of positive numbers (item %zu)", k);
			return bad(c, dict, key, what, e);
		}
		(*out)[k++] = e->valuedouble;
	}
	*n = k;
	return 0;
}

/* What resolve() has found so far: the scaling dict and its name, and the
 * two places L0 may be given. */
struct found {
	const cJSON *root, *dict, *rp;
	const char *dn;
	uint64_t top_orig, dict_orig;
};

/* Any RoPE field at all, and model_type (GPT-NeoX and GPT-J differ). */
static int model(struct ctx *c, struct found *f, struct pe_hfconfig *h)
{
	static const char *const rope_keys[] = {
		"rope_theta", "rope_scaling", "rope_parameters", "rotary_emb_base", "rotary_pct",
		"partial_rotary_factor", "rotary_dim", NULL
	};
	const cJSON *t;
	int k;

	if (!cJSON_IsObject(f->root))
		return pe_fail(c->err, PE_ERR_DATA, "%s: not a JSON object (a config.json is one)",
			       c->name);
	for (k = 0; rope_keys[k]; k++)
		if (cJSON_GetObjectItemCaseSensitive(f->root, rope_keys[k]))
			h->has_rope = 1;
	t = item(f->root, "model_type");
	if (t) {
		if (!cJSON_IsString(t))
			return bad(c, NULL, "model_type", "a string", t);
		snprintf(h->model_type, sizeof h->model_type, "%s", t->valuestring);
	}
	return 0;
}

/* The scaling dict and its type: rope_scaling wins when it is a non-empty
 * object (v5 convert_rope_params_to_dict: `rope_scaling or
 * rope_parameters`); the type is "rope_type", else the legacy "type". */
static int scaling_dict(struct ctx *c, struct found *f, struct pe_hfconfig *h)
{
	const cJSON *rs = item(f->root, "rope_scaling"), *t = NULL;
	const char *type = "default";
	int s;

	f->rp = item(f->root, "rope_parameters");
	if (rs && !cJSON_IsObject(rs))
		return bad(c, NULL, "rope_scaling", "an object or null", rs);
	if (f->rp && !cJSON_IsObject(f->rp))
		return bad(c, NULL, "rope_parameters", "an object or null", f->rp);
	if (rs && rs->child) {
		f->dict = rs;
		f->dn = "rope_scaling";
	} else if (f->rp) {
		f->dict = f->rp;
		f->dn = "rope_parameters";
	}
	h->dict = f->dn;
	snprintf(h->dict_key, sizeof h->dict_key, "%s", f->dn ? f->dn : "rope_parameters");
	snprintf(h->type_key, sizeof h->type_key, "%s.rope_type", h->dict_key);
	if (f->dict) {
		t = item(f->dict, "rope_type");
		if (t) {
			if (!cJSON_IsString(t))
				return bad(c, f->dn, "rope_type", "a string", t);
		} else {
			t = item(f->dict, "type");
			if (t && !cJSON_IsString(t))
				return bad(c, f->dn, "type", "a string", t);
			if (t)
				snprintf(h->type_key, sizeof h->type_key, "%s.type", f->dn);
		}
		if (t)
			type = t->valuestring;
	}
	s = pe_rope_scaling_by_name(type);
	if (s < 0 || strcmp(type, "none") == 0) {
		char shown[40];

		snprintf(shown, sizeof shown, "%s", type);
		return pe_fail(c->err, PE_ERR_DATA,
			       "%s: unsupported %s.%s '%s' (posenc knows default, linear, dynamic, yarn, llama3, longrope, proportional)",
			       c->name, f->dn, item(f->dict, "rope_type") ? "rope_type" : "type", shown);
	}
	h->scaling = (enum pe_rope_scaling)s;
	return 0;
}

/* theta: rope_parameters.rope_theta, else rope_theta, else rotary_emb_base
 * (GPT-NeoX), else 10000; the key it came from, for messages */
static int theta(struct ctx *c, struct found *f, struct pe_hfconfig *h)
{
	static const struct {
		int in_rp;
		const char *key, *shown;
	} order[] = {	/* lowest precedence first */
		{ 0, "rotary_emb_base", "rotary_emb_base" },
		{ 0, "rope_theta", "rope_theta" },
		{ 1, "rope_theta", "rope_parameters.rope_theta" },
	};
	size_t i;
	int present;

	h->theta = 10000.0;
	snprintf(h->theta_key, sizeof h->theta_key, "rope_theta");
	for (i = 0; i < sizeof order / sizeof order[0]; i++) {
		const cJSON *obj = order[i].in_rp ? f->rp : f->root;

		if (!obj)
			continue;
		if (number(c, obj, order[i].in_rp ? "rope_parameters" : NULL, order[i].key,
			   NUM_POSITIVE, &h->theta, &present) != 0)
			return -1;
		if (present)
			snprintf(h->theta_key, sizeof h->theta_key, "%s", order[i].shown);
	}
	return 0;
}

/* head_dim, else hidden_size // num_attention_heads (GPT-J's n_embd //
 * n_head) */
static int head_dim(struct ctx *c, struct found *f, struct pe_hfconfig *h)
{
	double hidden = 0, heads = 0;

	if (count(c, f->root, NULL, "head_dim", &h->head_dim) != 0 ||
	    number(c, f->root, NULL, "hidden_size", NUM_COUNT, &hidden, NULL) != 0 ||
	    number(c, f->root, NULL, "num_attention_heads", NUM_COUNT, &heads, NULL) != 0)
		return -1;
	if (hidden == 0 && number(c, f->root, NULL, "n_embd", NUM_COUNT, &hidden, NULL) != 0)
		return -1;
	if (heads == 0 && number(c, f->root, NULL, "n_head", NUM_COUNT, &heads, NULL) != 0)
		return -1;
	if (h->head_dim == 0 && hidden > 0 && heads > 0) {
		h->head_dim = (uint64_t)hidden / (uint64_t)heads;
		h->head_dim_derived = 1;
	}
	return 0;
}

/* The families whose rotary module pairs columns (2k, 2k+1): GPT-J's
 * rotate_every_two, repeat_interleave(freqs, 2) (Cohere, BLT) and
 * torch.polar's complex pairs (Llama 4, DeepSeek-V2), in transformers
 * 5.18's modeling files. */
static int interleaved_model(const char *model_type)
{
	static const char *const types[] = {
		"gptj", "cohere", "cohere2", "cohere2_moe", "llama4", "llama4_text", "deepseek_v2",
		"blt", NULL
	};
	size_t i;

	for (i = 0; types[i]; i++)
		if (strcmp(model_type, types[i]) == 0)
			return 1;
	return 0;
}

/* The families whose rotary module returns torch.polar(ones, freqs) (a
 * complex64 freqs_cis), whose cos and sin are glibc's cosf and sinf
 * element by element on CPU, not Tensor.cos()/.sin(). */
static int polar_model(const char *model_type)
{
	return strcmp(model_type, "llama4") == 0 || strcmp(model_type, "llama4_text") == 0 ||
	       strcmp(model_type, "deepseek_v2") == 0;
}

/* partial rotary: the top level, the dict, GPT-NeoX's rotary_pct, its
 * model default; GPT-J's rotary_dim and pairs */
static int partial_rotary(struct ctx *c, struct found *f, struct pe_hfconfig *h)
{
	double pct = 1.0;
	int present;

	if (number(c, f->root, NULL, "partial_rotary_factor", NUM_POSITIVE, &pct, &present) != 0)
		return -1;
	if (!present && f->dict &&
	    number(c, f->dict, f->dn, "partial_rotary_factor", NUM_POSITIVE, &pct, &present) != 0)
		return -1;
	if (!present && number(c, f->root, NULL, "rotary_pct", NUM_POSITIVE, &pct, &present) != 0)
		return -1;
	if (!present && strcmp(h->model_type, "gpt_neox") == 0) {
		pct = 0.25;
		h->partial_default = 1;
	}
	h->partial_rotary_factor = pct;
	if (pct > 1)
		return pe_fail(c->err, PE_ERR_DATA,
			       "%s: the partial rotary factor must be at most 1, got %g", c->name, pct);
	if (count(c, f->root, NULL, "rotary_dim", &h->rotary_dim) != 0)
		return -1;
	h->interleaved = interleaved_model(h->model_type);
	h->polar = polar_model(h->model_type);
	return 0;
}

/* The lengths and the scaling dict's numbers, each checked as a value. */
static int scaling_values(struct ctx *c, struct found *f, struct pe_hfconfig *h)
{
	const cJSON *d = f->dict, *t;
	const char *dn = f->dn;

	if (count(c, f->root, NULL, "max_position_embeddings", &h->max_positions) != 0 ||
	    count(c, f->root, NULL, "original_max_position_embeddings", &f->top_orig) != 0 ||
	    (d && count(c, d, dn, "original_max_position_embeddings", &f->dict_orig) != 0))
		return -1;
	h->attention_factor = NAN;
	h->truncate = -1;
	if (!d)
		return 0;
	t = item(d, "truncate");
	if (t) {
		if (!cJSON_IsBool(t))
			return bad(c, dn, "truncate", "true or false", t);
		h->truncate = cJSON_IsTrue(t);
	}
	if (number(c, d, dn, "factor", NUM_POSITIVE, &h->factor, NULL) != 0 ||
	    number(c, d, dn, "attention_factor", NUM_POSITIVE, &h->attention_factor, NULL) != 0 ||
	    number(c, d, dn, "beta_fast", NUM_NONNEG, &h->beta_fast, NULL) != 0 ||
	    number(c, d, dn, "beta_slow", NUM_NONNEG, &h->beta_slow, NULL) != 0 ||
	    number(c, d, dn, "mscale", NUM_NONNEG, &h->mscale, NULL) != 0 ||
	    number(c, d, dn, "mscale_all_dim", NUM_NONNEG, &h->mscale_all_dim, NULL) != 0 ||
	    number(c, d, dn, "low_freq_factor", NUM_POSITIVE, &h->low_freq_factor, NULL) != 0 ||
	    number(c, d, dn, "high_freq_factor", NUM_POSITIVE, &h->high_freq_factor, NULL) != 0 ||
	    list(c, d, dn, "short_factor", &h->short_factor, &h->nshort) != 0 ||
	    list(c, d, dn, "long_factor", &h->long_factor, &h->nlong) != 0)
		return -1;
	return 0;
}

/* L0 for yarn, llama3 and longrope: the top-level
 * original_max_position_embeddings, else the dict's, else
 * max_position_embeddings; the key it came from */
static int original_max(struct ctx *c, struct found *f, struct pe_hfconfig *h)
{
	h->original_max = f->top_orig ? f->top_orig : f->dict_orig ? f->dict_orig : h->max_positions;
	if (f->top_orig)
		snprintf(h->original_key, sizeof h->original_key, "original_max_position_embeddings");
	else if (f->dict_orig)
		snprintf(h->original_key, sizeof h->original_key, "%s.original_max_position_embeddings",
			 f->dn);
	else
		snprintf(h->original_key, sizeof h->original_key, "max_position_embeddings");
	if (h->original_max == 0)
		return missing(c, NULL, "original_max_position_embeddings",
			       "nor is there max_position_embeddings");
	return 0;
}

/* The fields each rope type requires (transformers raises KeyError
 * without them) and those it derives: dynamic's L0, yarn's and
 * longrope's factor. */
static int required(struct ctx *c, struct found *f, struct pe_hfconfig *h)
{
	const char *dn = f->dn;

	switch (h->scaling) {
	case PE_ROPE_NONE:
		return 0;
	case PE_ROPE_LINEAR:
		return h->factor == 0 ? missing(c, dn, "factor", "rope type linear needs it") : 0;
	case PE_ROPE_PROPORTIONAL:
		return 0;	/* factor: 1 when absent, as transformers' .get("factor", 1.0) */
	case PE_ROPE_DYNAMIC:
		if (h->factor == 0)
			return missing(c, dn, "factor", "rope type dynamic needs it");
		if (h->max_positions == 0)
			return missing(c, NULL, "max_position_embeddings",
				       "dynamic scales relative to it");
		h->original_max = h->max_positions;
		snprintf(h->original_key, sizeof h->original_key, "max_position_embeddings");
		return 0;
	case PE_ROPE_LLAMA3:
		if (original_max(c, f, h) != 0)
			return -1;
		if (h->factor == 0)
			return missing(c, dn, "factor", "rope type llama3 needs it");
		if (h->low_freq_factor == 0)
			return missing(c, dn, "low_freq_factor", "rope type llama3 needs it");
		if (h->high_freq_factor == 0)
			return missing(c, dn, "high_freq_factor", "rope type llama3 needs it");
		return 0;
	case PE_ROPE_YARN:
	case PE_ROPE_LONGROPE:
		if (original_max(c, f, h) != 0)
			return -1;
		if (h->factor == 0) {
			if (h->max_positions == 0)
				return missing(c, dn, "factor",
					       "nor is there max_position_embeddings to derive it");
			h->factor = (double)h->max_positions / (double)h->original_max;
		}
		if (h->scaling == PE_ROPE_LONGROPE && !h->short_factor)
			return missing(c, dn, "short_factor", "rope type longrope needs it");
		if (h->scaling == PE_ROPE_LONGROPE && !h->long_factor)
			return missing(c, dn, "long_factor", "rope type longrope needs it");
		return 0;
	}
	return 0;
}

/* The decisions in transformers' order (see hfconfig.h). */
static int resolve(struct ctx *c, const cJSON *root, struct pe_hfconfig *h)
{
	struct found f;

	memset(&f, 0, sizeof f);
	f.root = root;
	if (model(c, &f, h) != 0 || scaling_dict(c, &f, h) != 0 || theta(c, &f, h) != 0 ||
	    head_dim(c, &f, h) != 0 || partial_rotary(c, &f, h) != 0 ||
	    scaling_values(c, &f, h) != 0)
		return -1;
	return required(c, &f, h);
}

/* Drop every member of every object that a later member of the same
 * name overrides, as Python's dict does, counting them in c. */
static void keep_last(cJSON *obj, const char *prefix, struct pe_hfconfig *c)
{
	cJSON *m, *next, *later;
	char path[96];

	for (m = obj ? obj->child : NULL; m; m = next) {
		next = m->next;
		if (cJSON_IsObject(obj) && m->string) {
			for (later = next; later; later = later->next)
				if (later->string && strcmp(later->string, m->string) == 0)
					break;
			if (later) {
				if (c->duplicates++ == 0)
					snprintf(c->duplicate, sizeof c->duplicate, "%s%s%.60s", prefix,
						 *prefix ? "." : "", m->string);
				cJSON_Delete(cJSON_DetachItemViaPointer(obj, m));
				continue;
			}
		}
		if (cJSON_IsObject(m) || cJSON_IsArray(m)) {
			snprintf(path, sizeof path, "%s%s%.60s", prefix, *prefix && m->string ? "." : "",
				 m->string ? m->string : "");
			keep_last(m, path, c);
		}
	}
}

int pe_hfconfig_parse(const char *text, size_t len, const char *name, struct pe_hfconfig *c,
		      struct pe_error *err)
{
	struct ctx x = { name, err };
	const char *end = NULL;
	cJSON *root;
	int rc;

	memset(c, 0, sizeof *c);
	c->attention_factor = NAN;
	c->truncate = -1;
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!root) {
		size_t at = end && end >= text ? (size_t)(end - text) : 0;

		return pe_fail(err, PE_ERR_DATA, "%s: not valid JSON (near byte %zu)", name, at);
	}
	/* Python's json (and so the model) refuses text after the object */
	for (; end < text + len; end++)
		if (!pe_json_blank((unsigned char)*end)) {
			cJSON_Delete(root);
			return pe_fail(err, PE_ERR_DATA, "%s: not valid JSON (more text after the object, at byte %zu)",
				       name, (size_t)(end - text));
		}
	keep_last(root, "", c);
	rc = resolve(&x, root, c);
	cJSON_Delete(root);
	return rc;
}

int pe_hfconfig_read(const char *path, struct pe_hfconfig *c, struct pe_error *err)
{
	struct pe_input in;
	int rc;

	memset(c, 0, sizeof *c);
	c->attention_factor = NAN;
	c->truncate = -1;
	rc = pe_input_open(&in, path, PE_HFCONFIG_MAX_BYTES, err);
	if (rc != 0 && err && err->code == PE_ERR_DATA)
		rc = pe_fail(err, PE_ERR_DATA, "%s: larger than %zu MiB, not a config.json", in.name,
			     PE_HFCONFIG_MAX_BYTES >> 20);
	if (rc == 0)
		rc = pe_hfconfig_parse((const char *)in.data, in.len, in.name, c, err);
	pe_input_close(&in);
	return rc;
}

const char *pe_hfconfig_key(const struct pe_hfconfig *c, const char *param)
{
	/* the scaling dict's own keys, under the same name as core's */
	static const char *const dict_keys[] = {
		"factor", "attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim",
		"truncate", "low_freq_factor", "high_freq_factor", "short_factor", "long_factor",
		NULL
	};
	static char key[96];
	size_t i;

	if (strcmp(param, "theta") == 0)
		return c->theta_key;
	if (strcmp(param, "scaling") == 0)
		return c->type_key;
	if (strcmp(param, "original_max_positions") == 0)
		return c->original_key[0] ? c->original_key : "original_max_position_embeddings";
	for (i = 0; dict_keys[i]; i++)
		if (strcmp(param, dict_keys[i]) == 0) {
			snprintf(key, sizeof key, "%s.%s", c->dict_key, param);
			return key;
		}
	return NULL;
}

void pe_hfconfig_free(struct pe_hfconfig *c)
{
	free(c->short_factor);
	free(c->long_factor);
	c->short_factor = c->long_factor = NULL;
}
