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

static int resolve(struct ctx *c, const cJSON *root, struct pe_hfconfig *h)
{
	const cJSON *rs, *rp, *d = NULL, *t;
	const char *dn = NULL, *type = "default";
	double hidden = 0, heads = 0, pct;
	int present, s, k;
	uint64_t top_orig = 0, dict_orig = 0, R;
	static const char *const rope_keys[] = {
		"rope_theta", "rope_scaling", "rope_parameters", "rotary_emb_base", "rotary_pct",
		"partial_rotary_factor", "rotary_dim", NULL
	};

	if (!cJSON_IsObject(root))
		return pe_fail(c->err, PE_ERR_DATA, "%s: not a JSON object (a config.json is one)",
			       c->name);
	for (k = 0; rope_keys[k]; k++)
		if (cJSON_GetObjectItemCaseSensitive(root, rope_keys[k]))
			h->has_rope = 1;

	t = item(root, "model_type");
	if (t) {
		if (!cJSON_IsString(t))
			return bad(c, NULL, "model_type", "a string", t);
		snprintf(h->model_type, sizeof h->model_type, "%s", t->valuestring);
	}

	/* the scaling dict: rope_scaling wins when it is a non-empty object (v5
	 * convert_rope_params_to_dict: `rope_scaling or rope_parameters`) */
	rs = item(root, "rope_scaling");
	rp = item(root, "rope_parameters");
	if (rs && !cJSON_IsObject(rs))
		return bad(c, NULL, "rope_scaling", "an object or null", rs);
	if (rp && !cJSON_IsObject(rp))
		return bad(c, NULL, "rope_parameters", "an object or null", rp);
	if (rs && rs->child) {
		d = rs;
		dn = "rope_scaling";
	} else if (rp) {
		d = rp;
		dn = "rope_parameters";
	}
	h->dict = dn;
	if (d) {
		t = item(d, "rope_type");
		if (t) {
			if (!cJSON_IsString(t))
				return bad(c, dn, "rope_type", "a string", t);
		} else {
			t = item(d, "type");
			if (t && !cJSON_IsString(t))
				return bad(c, dn, "type", "a string", t);
		}
		if (t)
			type = t->valuestring;
	}
	s = pe_rope_scaling_by_name(type);
	if (s < 0 || strcmp(type, "none") == 0) {
		char shown[40];

		snprintf(shown, sizeof shown, "%s", type);
		pe_utf8_trim(shown);
		return pe_fail(c->err, PE_ERR_DATA,
			       "%s: unsupported %s.%s '%s' (posenc knows default, linear, dynamic, yarn, llama3, longrope)",
			       c->name, dn, item(d, "rope_type") ? "rope_type" : "type", shown);
	}
	h->scaling = (enum pe_rope_scaling)s;

	/* theta */
	h->theta = 10000.0;
	if (number(c, root, NULL, "rotary_emb_base", NUM_POSITIVE, &h->theta, NULL) != 0 ||
	    number(c, root, NULL, "rope_theta", NUM_POSITIVE, &h->theta, NULL) != 0 ||
	    (rp && number(c, rp, "rope_parameters", "rope_theta", NUM_POSITIVE, &h->theta, NULL) != 0))
		return -1;

	/* head dim */
	if (count(c, root, NULL, "head_dim", &h->head_dim) != 0)
		return -1;
	if (number(c, root, NULL, "hidden_size", NUM_COUNT, &hidden, NULL) != 0 ||
	    number(c, root, NULL, "num_attention_heads", NUM_COUNT, &heads, NULL) != 0)
		return -1;
	if (hidden == 0 && number(c, root, NULL, "n_embd", NUM_COUNT, &hidden, NULL) != 0)
		return -1;
	if (heads == 0 && number(c, root, NULL, "n_head", NUM_COUNT, &heads, NULL) != 0)
		return -1;
	if (h->head_dim == 0 && hidden > 0 && heads > 0) {
		h->head_dim = (uint64_t)hidden / (uint64_t)heads;
		h->head_dim_derived = 1;
	}

	/* partial rotary: the top level, the dict, GPT-NeoX's rotary_pct, its
	 * model default */
	pct = 1.0;
	if (number(c, root, NULL, "partial_rotary_factor", NUM_POSITIVE, &pct, &present) != 0)
		return -1;
	if (!present && d &&
	    number(c, d, dn, "partial_rotary_factor", NUM_POSITIVE, &pct, &present) != 0)
		return -1;
	if (!present && number(c, root, NULL, "rotary_pct", NUM_POSITIVE, &pct, &present) != 0)
		return -1;
	if (!present && strcmp(h->model_type, "gpt_neox") == 0) {
		pct = 0.25;
		h->partial_default = 1;
	}
	h->partial_rotary_factor = pct;
	if (pct > 1)
		return pe_fail(c->err, PE_ERR_DATA,
			       "%s: the partial rotary factor must be at most 1, got %g", c->name, pct);
	if (count(c, root, NULL, "rotary_dim", &h->rotary_dim) != 0)
		return -1;
	h->interleaved = strcmp(h->model_type, "gptj") == 0;

	/* lengths */
	if (count(c, root, NULL, "max_position_embeddings", &h->max_positions) != 0 ||
	    count(c, root, NULL, "original_max_position_embeddings", &top_orig) != 0 ||
	    (d && count(c, d, dn, "original_max_position_embeddings", &dict_orig) != 0))
		return -1;

	/* scaling parameters */
	h->attention_factor = NAN;
	h->truncate = -1;
	if (d) {
		t = item(d, "truncate");
		if (t) {
			if (!cJSON_IsBool(t))
				return bad(c, dn, "truncate", "true or false", t);
			h->truncate = cJSON_IsTrue(t);
		}
		if (number(c, d, dn, "factor", NUM_POSITIVE, &h->factor, NULL) != 0 ||
		    number(c, d, dn, "attention_factor", NUM_POSITIVE, &h->attention_factor,
			   NULL) != 0 ||
		    number(c, d, dn, "beta_fast", NUM_NONNEG, &h->beta_fast, NULL) != 0 ||
		    number(c, d, dn, "beta_slow", NUM_NONNEG, &h->beta_slow, NULL) != 0 ||
		    number(c, d, dn, "mscale", NUM_NONNEG, &h->mscale, NULL) != 0 ||
		    number(c, d, dn, "mscale_all_dim", NUM_NONNEG, &h->mscale_all_dim, NULL) != 0 ||
		    number(c, d, dn, "low_freq_factor", NUM_POSITIVE, &h->low_freq_factor, NULL) != 0 ||
		    number(c, d, dn, "high_freq_factor", NUM_POSITIVE, &h->high_freq_factor,
			   NULL) != 0 ||
		    list(c, d, dn, "short_factor", &h->short_factor, &h->nshort) != 0 ||
		    list(c, d, dn, "long_factor", &h->long_factor, &h->nlong) != 0)
			return -1;
	}

	switch (h->scaling) {
	case PE_ROPE_NONE:
		break;
	case PE_ROPE_LINEAR:
		if (h->factor == 0)
			return missing(c, dn, "factor", "rope type linear needs it");
		break;
	case PE_ROPE_DYNAMIC:
		if (h->factor == 0)
			return missing(c, dn, "factor", "rope type dynamic needs it");
		if (h->max_positions == 0)
			return missing(c, NULL, "max_position_embeddings",
				       "dynamic scales relative to it");
		h->original_max = h->max_positions;
		break;
	case PE_ROPE_YARN:
	case PE_ROPE_LLAMA3:
	case PE_ROPE_LONGROPE:
		h->original_max = top_orig ? top_orig : dict_orig ? dict_orig : h->max_positions;
		if (h->original_max == 0)
			return missing(c, NULL, "original_max_position_embeddings",
				       "nor is there max_position_embeddings");
		if (h->scaling == PE_ROPE_LLAMA3) {
			if (h->factor == 0)
				return missing(c, dn, "factor", "rope type llama3 needs it");
			if (h->low_freq_factor == 0)
				return missing(c, dn, "low_freq_factor", "rope type llama3 needs it");
			if (h->high_freq_factor == 0)
				return missing(c, dn, "high_freq_factor", "rope type llama3 needs it");
			if (!(h->low_freq_factor < h->high_freq_factor))
				return pe_fail(c->err, PE_ERR_DATA,
					       "%s: %s.low_freq_factor (%g) must be below %s.high_freq_factor (%g): llama3 divides by their difference",
					       c->name, dn, h->low_freq_factor, dn, h->high_freq_factor);
			break;
		}
		if (h->factor == 0) {
			if (h->max_positions == 0)
				return missing(c, dn, "factor",
					       "nor is there max_position_embeddings to derive it");
			h->factor = (double)h->max_positions / (double)h->original_max;
		}
		if (h->scaling == PE_ROPE_LONGROPE) {
			if (!h->short_factor)
				return missing(c, dn, "short_factor", "rope type longrope needs it");
			if (!h->long_factor)
				return missing(c, dn, "long_factor", "rope type longrope needs it");
		}
		break;
	}

	/* list lengths against the file's own rotary width, when it gives one */
	R = h->rotary_dim ? h->rotary_dim
			  : (uint64_t)((double)h->head_dim * h->partial_rotary_factor);
	if (h->scaling == PE_ROPE_LONGROPE && h->head_dim) {
		if (h->nshort != R / 2)
			return pe_fail(c->err, PE_ERR_DATA,
				       "%s: %s.short_factor has %zu values, rotary width %llu needs %llu",
				       c->name, dn, h->nshort, (unsigned long long)R,
				       (unsigned long long)(R / 2));
		if (h->nlong != R / 2)
			return pe_fail(c->err, PE_ERR_DATA,
				       "%s: %s.long_factor has %zu values, rotary width %llu needs %llu",
				       c->name, dn, h->nlong, (unsigned long long)R,
				       (unsigned long long)(R / 2));
	}
	return 0;
}

struct member {
	const char *name;
	size_t at;		/* place in the object */
};

static int by_name_then_place(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->at < y->at ? -1 : x->at > y->at;
}

/* Drop every member of every object that a later member of the same
 * name overrides, as Python's dict does, counting them in c (the first
 * one met, depth first in the text's order, named in c->duplicate).  The
 * names of an object are sorted once with their places, so a run of
 * equal names marks all but its last: n log n (comparing each member with
 * every later one took 65 s for 200,000 keys).  -1 when memory runs out. */
static int keep_last(cJSON *obj, const char *prefix, struct pe_hfconfig *c)
{
	cJSON *m, *next;
	struct member *v = NULL;
	unsigned char *dropped = NULL;
	size_t n = 0, k = 0, i;
	char path[96];
	int rc = -1;

	if (cJSON_IsObject(obj)) {
		for (m = obj->child; m; m = m->next)
			n++;
		v = malloc((n ? n : 1) * sizeof *v);
		dropped = calloc(n ? n : 1, 1);
		if (!v || !dropped)
			goto out;
		for (i = 0, m = obj->child; m; m = m->next, i++)
			if (m->string) {
				v[k].name = m->string;
				v[k++].at = i;
			}
		qsort(v, k, sizeof *v, by_name_then_place);
		for (i = 0; i + 1 < k; i++)
			if (strcmp(v[i].name, v[i + 1].name) == 0)
				dropped[v[i].at] = 1;
		free(v);
		v = NULL;
	}
	for (i = 0, m = obj ? obj->child : NULL; m; m = next, i++) {
		next = m->next;
		if (dropped && dropped[i]) {
			if (c->duplicates++ == 0) {
				snprintf(c->duplicate, sizeof c->duplicate, "%s%s%.60s", prefix,
					 *prefix ? "." : "", m->string);
				pe_utf8_trim(c->duplicate);
			}
			cJSON_Delete(cJSON_DetachItemViaPointer(obj, m));
			continue;
		}
		if (cJSON_IsObject(m) || cJSON_IsArray(m)) {
			snprintf(path, sizeof path, "%s%s%.60s", prefix, *prefix && m->string ? "." : "",
				 m->string ? m->string : "");
			pe_utf8_trim(path);
			if (keep_last(m, path, c) != 0)
				goto out;
		}
	}
	rc = 0;
out:
	free(v);
	free(dropped);
	return rc;
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
	if (keep_last(root, "", c) != 0)
		rc = pe_fail(err, PE_ERR_NOMEM, "%s: out of memory", name);
	else
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
	if (pe_input_intact(&in, err) != 0)
		rc = -1;
	pe_input_close(&in);
	return rc;
}

void pe_hfconfig_free(struct pe_hfconfig *c)
{
	free(c->short_factor);
	free(c->long_factor);
	c->short_factor = c->long_factor = NULL;
}
