#include "io/hfconfig.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "io/input.h"
#include "io/bytes.h"

#define COUNT_MAX ((double)((uint64_t)1 << 40))
#define LIST_MAX ((size_t)1 << 22)

enum { NUM_ANY, NUM_POSITIVE, NUM_COUNT, NUM_NONNEG };

struct ctx {
	const char *name;	/* file name for messages */
	struct pe_error *err;
	const char *shown;	/* the key bad() names instead, where the value was
				 * copied from (NULL: the one read) */
};

static int bad(struct ctx *c, const char *dict, const char *key, const char *want, const cJSON *v)
{
	char got[200];

	pe_json_text(v, got, sizeof got);
	if (c->shown)
		return pe_fail(c->err, PE_ERR_DATA, "%s: %s must be %s, got '%s'", c->name, c->shown,
			       want, got);
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

/* ---- what each model family's config class does (transformers 5.18) ---- */

enum {
	PE_HF_PARTIAL_IN_DEFAULT = 1, PE_HF_INTERLEAVED = 2, PE_HF_POLAR = 4,
	PE_HF_MROPE_AS_DEFAULT = 8, PE_HF_MROPE_CHUNKED = 16, PE_HF_MROPE_INTERLEAVED = 32,
	PE_HF_MROPE_SPLIT = 64, PE_HF_MROPE_TIMED = 128, PE_HF_MSCALE_SOFTMAX = 256
};

struct family {
	const char *model_type;
	double theta, local;	/* default_theta (global and local, or one) */
	double partial;		/* the partial_rotary_factor its class sets, 0: none */
	unsigned flags;
	const char *rope;	/* its default RoPE dict as JSON, NULL: {"rope_type": "default"} */
	const char *ignore;	/* keys its validation ignores, space-separated, or NULL */
	uint64_t max_positions;	/* its default max_position_embeddings, 0: none */
};

static const struct family families[] = {
#include "io/hf_families.h"
};

/* How a class builds rope_parameters from the file (its
 * convert_rope_params_to_dict), where it is not the generic mixin's. */
enum style {
	STYLE_GENERIC,		/* rope_scaling or rope_parameters; rope_theta fills the dict */
	STYLE_GEMMA3,		/* {full, sliding}; rope_scaling -> full; rope_theta -> full,
				 * rope_local_base_freq -> sliding */
	STYLE_MODERNBERT,	/* {full, sliding}; rope_scaling -> both; global_rope_theta,
				 * local_rope_theta */
	STYLE_OLMO3,		/* {full, sliding}; rope_scaling -> full; rope_theta -> full,
				 * the class default -> sliding (the key is popped once) */
	STYLE_AS_GIVEN,		/* rope_parameters as given, or the class's (no legacy keys) */
	STYLE_GPT_NEOX,		/* rotary_emb_base and rotary_pct (0.25) fill the dict */
	STYLE_PHI3		/* partial 1.0; su and yarn become longrope; the class's
				 * original_max_position_embeddings (4096) overrides the dict's */
};

/* Which layers are of which type when the file has no layer_types. */
enum layers {
	LAYERS_NONE,
	LAYERS_PATTERN,		/* sliding unless (i + 1) % P == 0 */
	LAYERS_PATTERN_LAST,	/* the same, and the last layer full (Gemma 4) */
	LAYERS_EVERY_N,		/* full when i % N == 0 (ModernBERT) */
	LAYERS_NO_ROPE,		/* no_rope_layers (Llama 4, SmolLM3) */
	LAYERS_WINDOW		/* sliding when i >= max_window_layers (Qwen3) */
};

/* NoPE layers. */
enum nope {
	NOPE_NONE,
	NOPE_LIST,		/* no_rope_layers[i] == 0 (Llama 4, SmolLM3) */
	NOPE_NOT_SLIDING	/* every layer but sliding ones (Cohere 2) */
};

static const struct rule {
	const char *model_type;
	enum style style;
	enum layers layers;
	const char *key;	/* the pattern's (or N's, or interval's) key */
	unsigned fixed;		/* its default */
	enum nope nope;
} rules[] = {
	{ "gemma2", STYLE_GENERIC, LAYERS_PATTERN, NULL, 2, NOPE_NONE },
	{ "gemma3_text", STYLE_GEMMA3, LAYERS_PATTERN, "sliding_window_pattern", 6, NOPE_NONE },
	{ "gemma3n_text", STYLE_GEMMA3, LAYERS_PATTERN, NULL, 5, NOPE_NONE },
	{ "t5gemma2_text", STYLE_GEMMA3, LAYERS_NONE, NULL, 0, NOPE_NONE },
	{ "t5gemma2_decoder", STYLE_GEMMA3, LAYERS_NONE, NULL, 0, NOPE_NONE },
	{ "gemma4_text", STYLE_AS_GIVEN, LAYERS_PATTERN_LAST, NULL, 6, NOPE_NONE },
	{ "gemma4_unified_text", STYLE_AS_GIVEN, LAYERS_PATTERN_LAST, NULL, 6, NOPE_NONE },
	{ "diffusion_gemma_text", STYLE_AS_GIVEN, LAYERS_NONE, NULL, 0, NOPE_NONE },
	{ "laguna", STYLE_AS_GIVEN, LAYERS_NONE, NULL, 0, NOPE_NONE },
	{ "mellum", STYLE_AS_GIVEN, LAYERS_NONE, NULL, 0, NOPE_NONE },
	{ "mimo_v2_flash", STYLE_AS_GIVEN, LAYERS_NONE, NULL, 0, NOPE_NONE },
	{ "modernbert", STYLE_MODERNBERT, LAYERS_EVERY_N, "global_attn_every_n_layers", 3,
	  NOPE_NONE },
	{ "modernbert-decoder", STYLE_MODERNBERT, LAYERS_NONE, NULL, 0, NOPE_NONE },
	{ "olmo3", STYLE_OLMO3, LAYERS_NONE, NULL, 0, NOPE_NONE },
	{ "gpt_oss", STYLE_GENERIC, LAYERS_PATTERN, NULL, 2, NOPE_NONE },
	{ "cohere2", STYLE_GENERIC, LAYERS_PATTERN, "sliding_window_pattern", 4, NOPE_NOT_SLIDING },
	{ "llama4_text", STYLE_GENERIC, LAYERS_NO_ROPE, "no_rope_layer_interval", 4, NOPE_LIST },
	{ "smollm3", STYLE_GENERIC, LAYERS_NO_ROPE, "no_rope_layer_interval", 4, NOPE_LIST },
	{ "qwen3", STYLE_GENERIC, LAYERS_WINDOW, "max_window_layers", 28, NOPE_NONE },
	{ "gpt_neox", STYLE_GPT_NEOX, LAYERS_NONE, NULL, 0, NOPE_NONE },
	{ "gpt_neox_japanese", STYLE_GPT_NEOX, LAYERS_NONE, NULL, 0, NOPE_NONE },
	{ "phi3", STYLE_PHI3, LAYERS_NONE, NULL, 0, NOPE_NONE },
	{ "phi4_multimodal", STYLE_PHI3, LAYERS_NONE, NULL, 0, NOPE_NONE },
};

static const struct rule generic_rule = { "", STYLE_GENERIC, LAYERS_NONE, NULL, 0, NOPE_NONE };

const char *const pe_hf_param_names[] = {
	"theta", "scaling", "factor", "original_max_positions", "attention_factor", "beta_fast",
	"beta_slow", "mscale", "mscale_all_dim", "truncate", "low_freq_factor",
	"high_freq_factor", "short_factor", "long_factor", "partial_rotary_factor", "head_dim",
	"llama_4_scaling_beta"
};

/* The key each parameter has in a RoPE dict. */
static const char *const dict_names[] = {
	"rope_theta", "rope_type", "factor", "original_max_position_embeddings",
	"attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate",
	"low_freq_factor", "high_freq_factor", "short_factor", "long_factor",
	"partial_rotary_factor", "head_dim", "llama_4_scaling_beta"
};

static const struct family *family_of(const char *model_type)
{
	size_t i;

	for (i = 0; i < sizeof families / sizeof families[0]; i++)
		if (strcmp(families[i].model_type, model_type) == 0)
			return &families[i];
	return NULL;
}

static const struct rule *rule_of(const char *model_type)
{
	size_t i;

	for (i = 0; i < sizeof rules / sizeof rules[0]; i++)
		if (strcmp(rules[i].model_type, model_type) == 0)
			return &rules[i];
	return &generic_rule;
}

/* ---- the dicts, built as transformers builds them ---- */

/* A value set by transformers rather than read at its place in the file:
 * where it came from (a key of the file, or a default). */
struct mark {
	const cJSON *dict;
	char key[40];
	enum pe_hf_origin origin;
	char src[112];
};

struct build {
	struct ctx *c;
	struct pe_hfconfig *h;
	const cJSON *text;		/* the text model's config */
	const struct family *fam;
	const struct rule *rule;
	cJSON *rp;			/* rope_parameters as transformers ends up with */
	char rp_path[64];		/* where its keys are written in the file */
	struct mark marks[64];
	size_t nmarks;
	char (*types)[PE_HF_NAME_MAX];	/* layer_types, nlayers of them */
	uint64_t nlayers;
	int *no_rope;			/* no_rope_layers, or NULL */
};

static void mark(struct build *b, const cJSON *dict, const char *key, enum pe_hf_origin o,
		 const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 5, 6)))
#endif
	;

static void mark(struct build *b, const cJSON *dict, const char *key, enum pe_hf_origin o,
		 const char *fmt, ...)
{
	struct mark *m;
	va_list ap;

	if (b->nmarks == sizeof b->marks / sizeof b->marks[0])
		return;
	m = &b->marks[b->nmarks++];
	m->dict = dict;
	snprintf(m->key, sizeof m->key, "%s", key);
	m->origin = o;
	va_start(ap, fmt);
	vsnprintf(m->src, sizeof m->src, fmt, ap);
	va_end(ap);
}

static const struct mark *marked(const struct build *b, const cJSON *dict, const char *key)
{
	size_t i;

	for (i = b->nmarks; i-- > 0;)
		if (b->marks[i].dict == dict && strcmp(b->marks[i].key, key) == 0)
			return &b->marks[i];
	return NULL;
}

static int nomem(struct build *b)
{
	return pe_fail(b->c->err, PE_ERR_NOMEM, "out of memory");
}

/* dict.setdefault(key, copy of v) (v NULL: no-op); the value's origin. */
static int setdefault(struct build *b, cJSON *dict, const char *key, const cJSON *v,
		      enum pe_hf_origin o, const char *src)
{
	cJSON *copy;

	if (!v || cJSON_GetObjectItemCaseSensitive(dict, key))
		return 0;
	copy = cJSON_Duplicate(v, 1);
	if (!copy || !cJSON_AddItemToObject(dict, key, copy)) {
		cJSON_Delete(copy);
		return nomem(b);
	}
	mark(b, dict, key, o, "%s", src);
	return 0;
}

static int setdefault_number(struct build *b, cJSON *dict, const char *key, double v,
			     enum pe_hf_origin o, const char *src)
{
	cJSON *n = cJSON_CreateNumber(v);
	int rc;

	if (!n)
		return nomem(b);
	rc = setdefault(b, dict, key, n, o, src);
	cJSON_Delete(n);
	return rc;
}

/* dict.update(other): other's keys keep their own place in the file. */
static int update(struct build *b, cJSON *dict, const cJSON *other, const char *other_path)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, other) {
		cJSON *copy = cJSON_Duplicate(m, 1);

		if (!copy)
			return nomem(b);
		if (cJSON_GetObjectItemCaseSensitive(dict, m->string))
			cJSON_ReplaceItemInObjectCaseSensitive(dict, m->string, copy);
		else if (!cJSON_AddItemToObject(dict, m->string, copy)) {
			cJSON_Delete(copy);
			return nomem(b);
		}
		mark(b, dict, m->string, PE_HF_GIVEN, "%s.%s", other_path, m->string);
	}
	return 0;
}

/* The text model's config: text_config when a wrapper nests it (Qwen-VL,
 * Mistral 3, Gemma 3) and holds no RoPE field itself. */
static const cJSON *text_model(const cJSON *root, struct pe_hfconfig *h)
{
	static const char *const rope_keys[] = {
		"rope_theta", "rope_scaling", "rope_parameters", "rotary_emb_base", "rotary_pct",
		"partial_rotary_factor", "rotary_dim", NULL
	};
	const cJSON *t = item(root, "text_config");
	int k;

	if (!t || !cJSON_IsObject(t))
		return root;	/* not an object: model() refuses it */
	for (k = 0; rope_keys[k]; k++)
		if (cJSON_GetObjectItemCaseSensitive(root, rope_keys[k]))
			return root;
	snprintf(h->prefix, sizeof h->prefix, "text_config.");
	return t;
}

/* What the multimodal position ids read from vision_config. */
static int vision(struct ctx *c, const cJSON *root, struct pe_hfconfig *h)
{
	const cJSON *v = item(root, "vision_config");
	double tps = 0;
	int present;

	if (!v)
		return 0;
	if (!cJSON_IsObject(v))
		return bad(c, NULL, "vision_config", "an object or null", v);
	if (count(c, v, "vision_config", "spatial_merge_size", &h->spatial_merge) != 0 ||
	    number(c, v, "vision_config", "tokens_per_second", NUM_POSITIVE, &tps, &present) != 0)
		return -1;
	if (present)
		h->tokens_per_second = tps;
	return 0;
}

/* The softmax scale's head dim of an MLA family: qk_nope_head_dim +
 * qk_rope_head_dim, as their config classes set qk_head_dim, else a
 * qk_head_dim the file gives; 0 when it says neither. */
static int qk_head_dim(struct ctx *c, const cJSON *text, struct pe_hfconfig *h)
{
	uint64_t nope = 0, rope = 0;

	if (count(c, text, NULL, "qk_head_dim", &h->qk_head_dim) != 0 ||
	    count(c, text, NULL, "qk_nope_head_dim", &nope) != 0 ||
	    count(c, text, NULL, "qk_rope_head_dim", &rope) != 0)
		return -1;
	snprintf(h->qk_key, sizeof h->qk_key, "%sqk_head_dim", h->prefix);
	if (nope && rope) {
		h->qk_head_dim = nope + rope;
		snprintf(h->qk_key, sizeof h->qk_key, "%sqk_nope_head_dim + qk_rope_head_dim", h->prefix);
	}
	return 0;
}

/* Any RoPE field at all, and model_type. */
static int model(struct ctx *c, const cJSON *root, struct build *b)
{
	static const char *const rope_keys[] = {
		"rope_theta", "rope_scaling", "rope_parameters", "rotary_emb_base", "rotary_pct",
		"partial_rotary_factor", "rotary_dim", NULL
	};
	struct pe_hfconfig *h = b->h;
	const cJSON *t;
	int k;

	if (!cJSON_IsObject(root))
		return pe_fail(c->err, PE_ERR_DATA, "%s: not a JSON object (a config.json is one)",
			       c->name);
	t = item(root, "text_config");
	if (t && !cJSON_IsObject(t))
		return bad(c, NULL, "text_config", "an object or null", t);
	b->text = text_model(root, h);
	for (k = 0; rope_keys[k]; k++)
		if (cJSON_GetObjectItemCaseSensitive(b->text, rope_keys[k]))
			h->has_rope = 1;
	t = item(b->text, "model_type");
	if (!t)
		t = item(root, "model_type");
	if (t) {
		if (!cJSON_IsString(t))
			return bad(c, NULL, "model_type", "a string", t);
		snprintf(h->model_type, sizeof h->model_type, "%s", t->valuestring);
	}
	b->fam = family_of(h->model_type);
	b->rule = rule_of(h->model_type);
	h->family_known = b->fam != NULL;
	h->has_rope |= h->family_known;
	h->interleaved = strcmp(h->model_type, "gptj") == 0 ||
			 (b->fam && (b->fam->flags & PE_HF_INTERLEAVED));
	h->polar = b->fam && (b->fam->flags & PE_HF_POLAR);
	if (b->fam && (b->fam->flags & PE_HF_MROPE_CHUNKED))
		h->mrope = PE_HF_MROPE_CHUNKS;
	if (b->fam && (b->fam->flags & PE_HF_MROPE_INTERLEAVED))
		h->mrope = PE_HF_MROPE_INTERLEAVE;
	h->mrope_split = b->fam && (b->fam->flags & PE_HF_MROPE_SPLIT);
	h->mrope_timed = b->fam && (b->fam->flags & PE_HF_MROPE_TIMED);
	h->mscale_softmax = b->fam && (b->fam->flags & PE_HF_MSCALE_SOFTMAX);
	if (h->mscale_softmax && qk_head_dim(c, b->text, h) != 0)
		return -1;
	return vision(c, root, h);
}

/* The class's default RoPE dict, or {"rope_type": "default"}. */
static cJSON *class_default(struct build *b)
{
	cJSON *d = b->fam && b->fam->rope ? cJSON_Parse(b->fam->rope) : cJSON_CreateObject();

	if (d && !(b->fam && b->fam->rope))
		cJSON_AddStringToObject(d, "rope_type", "default");
	return d;
}

/* rope_scaling when it is a non-empty object, else rope_parameters, else
 * NULL; errors for either of the wrong type. */
static int given_dict(struct build *b, const cJSON **d, const char **path)
{
	const cJSON *rs = item(b->text, "rope_scaling"), *rp = item(b->text, "rope_parameters");

	*d = NULL;
	*path = NULL;
	if (rs && !cJSON_IsObject(rs))
		return bad(b->c, NULL, "rope_scaling", "an object or null", rs);
	if (rp && !cJSON_IsObject(rp))
		return bad(b->c, NULL, "rope_parameters", "an object or null", rp);
	if (rs && rs->child) {
		*d = rs;
		*path = "rope_scaling";
	} else if (rp) {
		*d = rp;
		*path = "rope_parameters";
	}
	return 0;
}

/* The file's number under key (or NULL), or a default. */
static const cJSON *file_value(const struct build *b, const char *key)
{
	return item(b->text, key);
}

/* {full_attention, sliding_attention} as Gemma 3, ModernBERT and OLMo 3
 * build them. */
static int two_types(struct build *b)
{
	static const char *const names[] = { "full_attention", "sliding_attention" };
	const cJSON *rs = item(b->text, "rope_scaling"), *rp = item(b->text, "rope_parameters"), *v;
	enum style st = b->rule->style;
	size_t i;

	if (rs && !cJSON_IsObject(rs))
		return bad(b->c, NULL, "rope_scaling", "an object or null", rs);
	if (rp && !cJSON_IsObject(rp))
		return bad(b->c, NULL, "rope_parameters", "an object or null", rp);
	b->rp = rp ? cJSON_Duplicate(rp, 1) : cJSON_CreateObject();
	if (!b->rp)
		return nomem(b);
	snprintf(b->rp_path, sizeof b->rp_path, "%srope_parameters", b->h->prefix);
	for (i = 0; i < 2; i++) {
		cJSON *d = cJSON_GetObjectItemCaseSensitive(b->rp, names[i]);
		char path[96];

		if (!d || cJSON_IsNull(d)) {
			cJSON *fresh = cJSON_CreateObject();

			if (!fresh || !cJSON_AddStringToObject(fresh, "rope_type", "default")) {
				cJSON_Delete(fresh);
				return nomem(b);
			}
			if (d)
				cJSON_ReplaceItemInObjectCaseSensitive(b->rp, names[i], fresh);
			else
				cJSON_AddItemToObject(b->rp, names[i], fresh);
			d = fresh;
			/* the class's, not the file's (check_nested) */
			mark(b, b->rp, names[i], PE_HF_DEFAULT, "%s.%s", b->rp_path, names[i]);
			mark(b, d, "rope_type", PE_HF_DEFAULT, "%s.%s.rope_type", b->rp_path, names[i]);
		}
		if (!cJSON_IsObject(d))
			return bad(b->c, "rope_parameters", names[i], "an object or null", d);
		snprintf(path, sizeof path, "%srope_scaling", b->h->prefix);
		if (rs && (i == 0 || st == STYLE_MODERNBERT) && update(b, d, rs, path) != 0)
			return -1;
		/* the theta each class takes for each type */
		v = file_value(b, st == STYLE_MODERNBERT ? (i ? "local_rope_theta" : "global_rope_theta")
				  : i == 0 || st == STYLE_OLMO3 ? "rope_theta" : "rope_local_base_freq");
		if (st == STYLE_OLMO3 && i == 1)
			v = NULL;	/* popped by the full dict: the class default */
		if (v) {
			snprintf(path, sizeof path, "%s%s", b->h->prefix, v->string);
			if (setdefault(b, d, "rope_theta", v, PE_HF_GIVEN, path) != 0)
				return -1;
		} else {
			snprintf(path, sizeof path, "%s%s", b->h->prefix,
				 st == STYLE_MODERNBERT ? (i ? "local_rope_theta" : "global_rope_theta")
				 : i == 0 || st == STYLE_OLMO3 ? "rope_theta" : "rope_local_base_freq");
			if (setdefault_number(b, d, "rope_theta",
					      i && b->fam && b->fam->local > 0 ? b->fam->local
					      : b->fam ? b->fam->theta : 10000.0,
					      PE_HF_DEFAULT, path) != 0)
				return -1;
		}
	}
	return 0;
}

/* The generic mixin (and GPT-NeoX's, Phi-3's): rope_scaling or
 * rope_parameters or the class's default; theta and partial fill it. */
static int one_dict(struct build *b)
{
	enum style st = b->rule->style;
	const cJSON *d, *theta = NULL, *partial = NULL;
	const char *path, *theta_key = "rope_theta", *partial_key = "partial_rotary_factor";
	char src[96];
	int fresh = 0;

	if (given_dict(b, &d, &path) != 0)
		return -1;
	if (d) {
		b->rp = cJSON_Duplicate(d, 1);
		snprintf(b->rp_path, sizeof b->rp_path, "%s%s", b->h->prefix, path);
	} else {
		b->rp = st == STYLE_AS_GIVEN || st == STYLE_GENERIC ? class_default(b)
								    : cJSON_CreateObject();
		snprintf(b->rp_path, sizeof b->rp_path, "%srope_parameters", b->h->prefix);
		fresh = 1;
	}
	if (!b->rp)
		return nomem(b);
	if (fresh) {
		const cJSON *m;

		cJSON_ArrayForEach(m, b->rp)
			mark(b, b->rp, m->string, PE_HF_DEFAULT, "%s.%s", b->rp_path, m->string);
	}
	if (st == STYLE_GPT_NEOX) {
		theta_key = "rotary_emb_base";
		partial_key = "rotary_pct";
	}
	theta = file_value(b, theta_key);
	partial = file_value(b, partial_key);
	if (theta) {
		snprintf(src, sizeof src, "%s%s", b->h->prefix, theta_key);
		if (setdefault(b, b->rp, "rope_theta", theta, PE_HF_GIVEN, src) != 0)
			return -1;
	} else {
		/* where the file would give it */
		if (st == STYLE_AS_GIVEN)
			snprintf(src, sizeof src, "%s.rope_theta", b->rp_path);
		else
			snprintf(src, sizeof src, "%s%s", b->h->prefix, theta_key);
		if (setdefault_number(b, b->rp, "rope_theta", b->fam ? b->fam->theta : 10000.0,
				      PE_HF_DEFAULT, src) != 0)
			return -1;
	}
	if (partial) {
		snprintf(src, sizeof src, "%s%s", b->h->prefix, partial_key);
		if (setdefault(b, b->rp, "partial_rotary_factor", partial, PE_HF_GIVEN, src) != 0)
			return -1;
	} else if (st == STYLE_GPT_NEOX || st == STYLE_PHI3 || (b->fam && b->fam->partial > 0)) {
		snprintf(src, sizeof src, "%s.partial_rotary_factor", b->rp_path);
		if (setdefault_number(b, b->rp, "partial_rotary_factor",
				      st == STYLE_GPT_NEOX ? 0.25 : st == STYLE_PHI3 ? 1.0
				      : b->fam->partial, PE_HF_DEFAULT, src) != 0)
			return -1;
	}
	return 0;
}

/* transformers 5.18's layer type names (configuration_utils.py
 * ALLOWED_ATTN_LAYER_TYPES, what validate_layer_type allows in
 * layer_types), and the legacy ones it renames. */
static const char *const allowed_types[] = {
	"full_attention", "sliding_attention", "chunked_attention", "window_attention",
	"indexed_attention", "compressed_sparse_attention", "heavily_compressed_attention",
	"minimax_m3_sparse", "conv", "moe", "hybrid", "hybrid_sliding", "linear_attention", NULL
};
static const char *const legacy_types[][2] = {
	{ "mamba", "linear_attention" }, { "attention", "full_attention" },
	{ "deepseek_sparse_attention", "indexed_attention" },
	{ "qwen_sparse_attention", "indexed_attention" },
};

static int allowed_type(const char *name)
{
	size_t k;

	for (k = 0; allowed_types[k]; k++)
		if (strcmp(allowed_types[k], name) == 0)
			return 1;
	return 0;
}

/* layer_types: the file's, else the class's rule; no_rope_layers. */
static int layer_types(struct build *b)
{
	const cJSON *lt = item(b->text, "layer_types"), *e, *nr;
	const struct rule *r = b->rule;
	double n = 0, v = 0, sw = 0;
	uint64_t i, P = r->fixed;
	int present;

	if (number(b->c, b->text, NULL, "num_hidden_layers", NUM_COUNT, &n, NULL) != 0)
		return -1;
	if (r->key && number(b->c, b->text, NULL, r->key, NUM_COUNT, &v, &present) != 0)
		return -1;
	if (r->key && present)
		P = (uint64_t)v;
	if (lt) {
		double layers = n;

		if (!cJSON_IsArray(lt))
			return bad(b->c, NULL, "layer_types", "a list of names", lt);
		n = cJSON_GetArraySize(lt);
		/* validate_layer_type's ValueError */
		if (layers > 0 && layers != n)
			return pe_fail(b->c->err, PE_ERR_DATA,
				       "%s: %slayer_types has %.0f entries, num_hidden_layers is %.0f (transformers refuses the config)",
				       b->c->name, b->h->prefix, n, layers);
	}
	if (n > (double)PE_HF_MAX_LAYERS)
		return pe_fail(b->c->err, PE_ERR_DATA, "%s: %s%s has %.0f layers, posenc reads at most %llu",
			       b->c->name, b->h->prefix, lt ? "layer_types" : "num_hidden_layers", n,
			       (unsigned long long)PE_HF_MAX_LAYERS);
	b->nlayers = (uint64_t)n;
	if (b->nlayers == 0)
		return 0;
	b->types = calloc(b->nlayers, sizeof *b->types);
	if (!b->types)
		return nomem(b);
	nr = item(b->text, "no_rope_layers");
	if (r->nope == NOPE_LIST) {
		b->no_rope = calloc(b->nlayers, sizeof *b->no_rope);
		if (!b->no_rope)
			return nomem(b);
		if (nr && (!cJSON_IsArray(nr) || (uint64_t)cJSON_GetArraySize(nr) != b->nlayers))
			return bad(b->c, NULL, "no_rope_layers", "a list of one 0 or 1 per layer", nr);
		for (i = 0; nr && i < b->nlayers; i++) {
			const cJSON *x = cJSON_GetArrayItem(nr, (int)i);

			/* list[int]: a strict dataclass field (bools are ints) */
			if (!cJSON_IsBool(x) && !(cJSON_IsNumber(x) && x->valuedouble == floor(x->valuedouble) &&
						  fabs(x->valuedouble) < 0x1p53)) {
				char what[64];

				snprintf(what, sizeof what, "a list of integers (item %llu)", (unsigned long long)i);
				return bad(b->c, NULL, "no_rope_layers", what, x);
			}
		}
		for (i = 0; i < b->nlayers; i++)
			b->no_rope[i] = nr && cJSON_GetArrayItem(nr, (int)i)
					? cJSON_IsTrue(cJSON_GetArrayItem(nr, (int)i)) ||
						  (cJSON_IsNumber(cJSON_GetArrayItem(nr, (int)i)) &&
						   cJSON_GetArrayItem(nr, (int)i)->valuedouble != 0)
					: (i + 1) % (P ? P : 4) != 0;
	}
	if (number(b->c, b->text, NULL, "sliding_window", NUM_COUNT, &sw, NULL) != 0)
		return -1;
	i = 0;
	if (lt) {
		cJSON_ArrayForEach(e, lt) {
			const char *name;
			size_t k;

			if (!cJSON_IsString(e))
				return bad(b->c, NULL, "layer_types", "a list of names", e);
			name = e->valuestring;
			for (k = 0; k < sizeof legacy_types / sizeof legacy_types[0]; k++)
				if (strcmp(name, legacy_types[k][0]) == 0)
					name = legacy_types[k][1];	/* remap_legacy_layer_types */
			if (!allowed_type(name)) {
				char shown[48];

				snprintf(shown, sizeof shown, "%.40s", name);
				return pe_fail(b->c->err, PE_ERR_DATA,
					       "%s: %slayer_types[%llu] '%s' is not a layer type of transformers 5.18 (full_attention, sliding_attention, chunked_attention, linear_attention, ...)",
					       b->c->name, b->h->prefix, (unsigned long long)i, shown);
			}
			snprintf(b->types[i++], PE_HF_NAME_MAX, "%s", name);
		}
		return 0;
	}
	for (i = 0; i < b->nlayers; i++) {
		const char *t = NULL;

		switch (r->layers) {
		case LAYERS_NONE:
			free(b->types);
			b->types = NULL;
			return 0;
		case LAYERS_PATTERN:
		case LAYERS_PATTERN_LAST:
			t = P && (i + 1) % P == 0 ? "full_attention" : "sliding_attention";
			if (r->layers == LAYERS_PATTERN_LAST && i + 1 == b->nlayers)
				t = "full_attention";
			break;
		case LAYERS_EVERY_N:
			t = P && i % P == 0 ? "full_attention" : "sliding_attention";
			break;
		case LAYERS_NO_ROPE:
			t = strcmp(b->h->model_type, "llama4_text") == 0
				    ? (b->no_rope[i] ? "chunked_attention" : "full_attention")
				    : "full_attention";
			break;
		case LAYERS_WINDOW:
			t = sw > 0 && i >= P ? "sliding_attention" : "full_attention";
			break;
		}
		snprintf(b->types[i], PE_HF_NAME_MAX, "%s", t);
	}
	return 0;
}

static int is_layer_type(const struct build *b, const char *name)
{
	uint64_t i;

	for (i = 0; i < b->nlayers && b->types; i++)
		if (strcmp(b->types[i], name) == 0)
			return 1;
	return 0;
}

/* standardize_rope_params for one dict. */
static int standardize(struct build *b, cJSON *d, const char *path, int nested)
{
	const cJSON *t = item(d, "rope_type"), *om;
	char src[128];
	double v;
	int present;

	/* Qwen2-VL's and Qwen2.5-VL's config classes read rope_type (else
	 * type) "mrope" as "default" before standardizing */
	if (b->fam && (b->fam->flags & PE_HF_MROPE_AS_DEFAULT)) {
		const cJSON *k = t ? t : item(d, "type");

		if (k && cJSON_IsString(k) && strcmp(k->valuestring, "mrope") == 0) {
			if (t)
				cJSON_SetValuestring((cJSON *)t, "default");
			else if (!cJSON_AddStringToObject(d, "rope_type", "default"))
				return nomem(b);
			mark(b, d, "rope_type", PE_HF_GIVEN, "%s.%s", path, t ? "rope_type" : "type");
			t = item(d, "rope_type");
		}
	}
	if (!t) {
		const cJSON *legacy = item(d, "type");
		cJSON *s;

		if (legacy && !cJSON_IsString(legacy))
			return bad(b->c, path, "type", "a string", legacy);
		s = cJSON_CreateString(legacy ? legacy->valuestring : "default");

		if (!s)
			return nomem(b);
		if (setdefault(b, d, "rope_type", s, legacy ? PE_HF_GIVEN : PE_HF_DEFAULT, "") != 0) {
			cJSON_Delete(s);
			return -1;
		}
		cJSON_Delete(s);
		b->marks[b->nmarks - 1].origin = legacy ? PE_HF_GIVEN : PE_HF_DEFAULT;
		snprintf(b->marks[b->nmarks - 1].src, sizeof b->marks[0].src, "%s.%s", path,
			 legacy ? "type" : "rope_type");
		t = item(d, "rope_type");
	}
	if (!cJSON_IsString(t))
		return bad(b->c, path, "rope_type", "a string", t);
	if (b->rule->style == STYLE_PHI3 &&
	    (strcmp(t->valuestring, "su") == 0 || strcmp(t->valuestring, "yarn") == 0))
		cJSON_SetValuestring((cJSON *)t, "longrope");	/* Phi3Config: su, yarn -> longrope */
	if (strcmp(t->valuestring, "llama3") != 0 && strcmp(t->valuestring, "yarn") != 0 &&
	    strcmp(t->valuestring, "longrope") != 0)
		return 0;
	/* L0: an attribute of the class overrides the flat dict's (Phi-3's
	 * field, or a top-level key of the file); else max_position_embeddings */
	om = file_value(b, "original_max_position_embeddings");
	if (!nested && (om || b->rule->style == STYLE_PHI3)) {
		cJSON *copy = om ? cJSON_Duplicate(om, 1) : cJSON_CreateNumber(4096);

		if (!copy)
			return nomem(b);
		if (cJSON_GetObjectItemCaseSensitive(d, "original_max_position_embeddings"))
			cJSON_ReplaceItemInObjectCaseSensitive(d, "original_max_position_embeddings",
							       copy);
		else
			cJSON_AddItemToObject(d, "original_max_position_embeddings", copy);
		if (om)
			mark(b, d, "original_max_position_embeddings", PE_HF_GIVEN, "%s%s",
			     b->h->prefix, "original_max_position_embeddings");
		else
			mark(b, d, "original_max_position_embeddings", PE_HF_DEFAULT, "%s%s (Phi3Config's 4096)",
			     b->h->prefix, "original_max_position_embeddings");
		return 0;
	}
	if (number(b->c, b->text, NULL, "max_position_embeddings", NUM_COUNT, &v, &present) != 0)
		return -1;
	snprintf(src, sizeof src, "%smax_position_embeddings", b->h->prefix);
	if (present)
		return setdefault(b, d, "original_max_position_embeddings",
				  item(b->text, "max_position_embeddings"), PE_HF_DERIVED, src);
	if (b->fam && b->fam->max_positions) {	/* the class's default */
		snprintf(src, sizeof src, "%smax_position_embeddings (the class's %llu)",
			 b->h->prefix, (unsigned long long)b->fam->max_positions);
		return setdefault_number(b, d, "original_max_position_embeddings",
					 (double)b->fam->max_positions, PE_HF_DEFAULT, src);
	}
	return 0;
}

/* The keys a rope type takes (validate_rope): required ones, and the
 * optional ones it does not warn about. */
static const struct {
	const char *type;
	const char *required;
	const char *optional;
} keysets[] = {
	{ "default", "rope_type", "rope_theta" },
	{ "linear", "rope_type factor", "rope_theta" },
	{ "dynamic", "rope_type factor", "rope_theta" },
	{ "yarn", "rope_type factor original_max_position_embeddings",
	  "rope_theta attention_factor beta_fast beta_slow mscale mscale_all_dim truncate" },
	{ "longrope", "rope_type short_factor long_factor original_max_position_embeddings",
	  "rope_theta attention_factor factor" },
	{ "llama3", "rope_type factor original_max_position_embeddings low_freq_factor "
		    "high_freq_factor rope_theta", "" },
	{ "proportional", "rope_type rope_theta", "" },
};

static int in_words(const char *words, const char *w)
{
	size_t n = strlen(w);
	const char *p;

	/* An empty key or one with a space is no word of the list (an empty
	 * one would otherwise step past the list's terminator). */
	if (n == 0 || strchr(w, ' '))
		return 0;
	for (p = words ? strstr(words, w) : NULL; p; p = strstr(p + 1, w))
		if ((p == words || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

static void warn(struct pe_hfconfig *h, const char *fmt, ...)
#if defined(__GNUC__)
	__attribute__((format(printf, 2, 3)))
#endif
	;

static void warn(struct pe_hfconfig *h, const char *fmt, ...)
{
	va_list ap;

	if (h->nwarn == PE_HF_MAX_WARN)
		return;
	va_start(ap, fmt);
	vsnprintf(h->warn[h->nwarn++], sizeof h->warn[0], fmt, ap);
	va_end(ap);
}

/* validate_rope for one dict: a missing required key is transformers'
 * KeyError, an unknown key its warning. */
static int validate(struct build *b, const cJSON *d, const char *path, const char *type)
{
	const char *required = NULL, *optional = NULL, *p, *q;
	const cJSON *m;
	char key[64];
	size_t i;

	for (i = 0; i < sizeof keysets / sizeof keysets[0]; i++)
		if (strcmp(keysets[i].type, type) == 0) {
			required = keysets[i].required;
			optional = keysets[i].optional;
		}
	if (!required)
		return 0;
	for (p = required; *p; p = *q ? q + 1 : q) {
		q = p + strcspn(p, " ");
		snprintf(key, sizeof key, "%.*s", (int)(q - p), p);
		if (!cJSON_GetObjectItemCaseSensitive(d, key))
			return pe_fail(b->c->err, PE_ERR_DATA,
				       "%s: %s.%s is missing (transformers requires it for rope_type %s)",
				       b->c->name, path, key, type);
	}
	cJSON_ArrayForEach(m, d) {
		if (!m->string || in_words(required, m->string) || in_words(optional, m->string) ||
		    strcmp(m->string, "partial_rotary_factor") == 0 || strcmp(m->string, "type") == 0 ||
		    (b->fam && in_words(b->fam->ignore, m->string)))
			continue;
		warn(b->h, "%s: %s.%.60s is not a key of rope_type %s: transformers warns and ignores it",
		     b->c->name, path, m->string, type);
	}
	return 0;
}

/* One number of the dict into *out with its origin; absent leaves *out. */
static int take(struct build *b, const cJSON *d, const char *path, struct pe_hfrope *r,
		enum pe_hf_param p, int kind, double *out)
{
	const struct mark *m = marked(b, d, dict_names[p]);
	int present, rc;

	/* a value copied into the dict (rotary_emb_base, local_rope_theta, ...)
	 * is named where the file has it */
	b->c->shown = m && m->src[0] && m->origin == PE_HF_GIVEN ? m->src : NULL;
	rc = number(b->c, d, path, dict_names[p], kind, out, &present);
	b->c->shown = NULL;
	if (rc != 0)
		return -1;
	if (!present) {
		r->src[p].origin = PE_HF_ABSENT;
		snprintf(r->src[p].key, sizeof r->src[p].key, "%s.%s", path, dict_names[p]);
		return 0;
	}
	r->src[p].origin = m ? m->origin : PE_HF_GIVEN;
	if (m && m->src[0])
		snprintf(r->src[p].key, sizeof r->src[p].key, "%s", m->src);
	else
		snprintf(r->src[p].key, sizeof r->src[p].key, "%s.%s", path, dict_names[p]);
	return 0;
}

/*
 * The head_dim a config's per_layer_config (transformers 5.18's
 * heterogeneous configs: {"LAYER": {"head_dim": ...}}, what save_pretrained
 * writes for Gemma 4's global_head_dim) gives the layers of type name:
 * per_layer_config[name] is the overrides of the type's first layer, an
 * override equal to the global value dropped, and every layer of the type
 * must have the same (else transformers raises ValueError).  Returns 1 with
 * *v and the key, 0 when it sets none, -1 on error; *mixed: the layers
 * disagree.
 */
static int layer_head_dim(struct build *b, const char *name, double global, double *v,
			  char *key, size_t keylen, int *mixed)
{
	const cJSON *plc = item(b->text, "per_layer_config"), *o, *h;
	char idx[24], first[24] = "";
	double ref = 0, got;
	int have = 0, seen = 0;
	uint64_t i;

	*mixed = 0;
	if (!plc || !b->types)
		return 0;
	if (!cJSON_IsObject(plc))
		return bad(b->c, NULL, "per_layer_config", "an object of layer indices", plc);
	for (i = 0; i < b->nlayers; i++) {
		if (strcmp(b->types[i], name) != 0)
			continue;
		snprintf(idx, sizeof idx, "%llu", (unsigned long long)i);
		o = item(plc, idx);
		if (o && !cJSON_IsObject(o))
			return bad(b->c, "per_layer_config", idx, "an object", o);
		h = item(o, "head_dim");
		got = 0;
		if (h) {
			char dict[48];

			snprintf(dict, sizeof dict, "per_layer_config.%s", idx);
			if (number(b->c, o, dict, "head_dim", NUM_COUNT, &got, NULL) != 0)
				return -1;
			if (got == global)
				got = 0;	/* transformers drops what equals the global value */
		}
		if (!seen++) {
			ref = got;
			have = got > 0;
			snprintf(first, sizeof first, "%s", idx);
		} else if (got != ref) {
			*mixed = 1;
		}
	}
	if (!have)
		return 0;
	*v = ref;
	snprintf(key, keylen, "%sper_layer_config.%s.head_dim", b->h->prefix, first);
	return 1;
}

/* The head dim a type's RoPE uses: per_layer_config's for its layers
 * (Gemma 4's rotary module always reads it; the generic functions of the
 * scaled types when the type's layers agree), Gemma 4's global_head_dim
 * for its full layers when the file has no per_layer_config, DeepSeek's
 * qk_rope_head_dim, else head_dim or hidden_size / num_attention_heads. */
static int head_dim(struct build *b, struct pe_hfrope *r)
{
	double hidden = 0, heads = 0, v = 0, g = 0;
	int present, rc, mixed;
	const char *key = "head_dim";
	int gemma4 = b->rule->style == STYLE_AS_GIVEN && strncmp(b->h->model_type, "gemma4", 6) == 0;
	char k[112];

	if (strncmp(b->h->model_type, "deepseek_v", 10) == 0)
		key = "qk_rope_head_dim";
	if (r->name[0] && item(b->text, "per_layer_config")) {
		if (number(b->c, b->text, NULL, key, NUM_COUNT, &g, NULL) != 0)
			return -1;
		rc = layer_head_dim(b, r->name, g, &v, k, sizeof k, &mixed);
		if (rc < 0)
			return -1;
		if (mixed && gemma4)
			return pe_fail(b->c->err, PE_ERR_DATA,
				       "%s: %sper_layer_config gives the %s layers different overrides (transformers refuses the config: per_layer_config['%s'] raises ValueError)",
				       b->c->name, b->h->prefix, r->name, r->name);
		if (rc == 1 && !mixed && (gemma4 || r->scaling != PE_ROPE_NONE)) {
			r->head_dim = (uint64_t)v;
			r->src[PE_HF_HEAD_DIM].origin = PE_HF_GIVEN;
			snprintf(r->src[PE_HF_HEAD_DIM].key, sizeof r->src[0].key, "%s", k);
			return 0;
		}
		if (gemma4)
			goto plain;	/* the type's layers take the global head_dim */
	}
	if (gemma4 && strcmp(r->name, "full_attention") == 0) {
		if (number(b->c, b->text, NULL, "global_head_dim", NUM_COUNT, &v, &present) != 0)
			return -1;
		r->head_dim = present ? (uint64_t)v : 512;
		r->src[PE_HF_HEAD_DIM].origin = present ? PE_HF_GIVEN : PE_HF_DEFAULT;
		snprintf(r->src[PE_HF_HEAD_DIM].key, sizeof r->src[0].key, "%sglobal_head_dim",
			 b->h->prefix);
		return 0;
	}
plain:
	if (number(b->c, b->text, NULL, key, NUM_COUNT, &v, &present) != 0)
		return -1;
	snprintf(r->src[PE_HF_HEAD_DIM].key, sizeof r->src[0].key, "%s%s", b->h->prefix, key);
	if (present) {
		r->head_dim = (uint64_t)v;
		r->src[PE_HF_HEAD_DIM].origin = PE_HF_GIVEN;
		return 0;
	}
	if (number(b->c, b->text, NULL, "hidden_size", NUM_COUNT, &hidden, NULL) != 0 ||
	    number(b->c, b->text, NULL, "num_attention_heads", NUM_COUNT, &heads, NULL) != 0)
		return -1;
	if (hidden == 0 && number(b->c, b->text, NULL, "n_embd", NUM_COUNT, &hidden, NULL) != 0)
		return -1;
	if (heads == 0 && number(b->c, b->text, NULL, "n_head", NUM_COUNT, &heads, NULL) != 0)
		return -1;
	if (hidden > 0 && heads > 0) {
		r->head_dim = (uint64_t)hidden / (uint64_t)heads;
		r->head_dim_derived = 1;
		r->src[PE_HF_HEAD_DIM].origin = PE_HF_DERIVED;
		snprintf(r->src[PE_HF_HEAD_DIM].key, sizeof r->src[0].key,
			 "%shidden_size / num_attention_heads", b->h->prefix);
	}
	return 0;
}

/* mrope_section and mrope_interleaved as they are: transformers' validation
 * ignores them, so a malformed one is the multimodal kind's problem alone. */
static void mrope_keys(struct build *b, const cJSON *d, const char *path, struct pe_hfrope *r)
{
	const cJSON *v = item(d, "mrope_section"), *e;
	const struct mark *m = marked(b, d, "mrope_section");

	r->mrope_interleaved = -1;
	if (cJSON_IsBool(item(d, "mrope_interleaved")))
		r->mrope_interleaved = cJSON_IsTrue(item(d, "mrope_interleaved"));
	snprintf(r->mrope_section_key, sizeof r->mrope_section_key, "%s",
		 m && m->src[0] ? m->src : "");
	if (!r->mrope_section_key[0])
		snprintf(r->mrope_section_key, sizeof r->mrope_section_key, "%s.mrope_section", path);
	if (!v)
		return;
	r->nsection = PE_HF_MROPE_BAD;
	pe_json_text(v, r->mrope_section_text, sizeof r->mrope_section_text);
	if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) > PE_HF_MROPE_MAX)
		return;
	r->nsection = 0;
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsNumber(e) || !(e->valuedouble >= 0) || e->valuedouble > COUNT_MAX ||
		    e->valuedouble != floor(e->valuedouble)) {
			r->nsection = PE_HF_MROPE_BAD;
			return;
		}
		r->mrope_section[r->nsection++] = (uint64_t)e->valuedouble;
	}
}

/* One dict, standardized, into r. */
static int resolve_type(struct build *b, cJSON *d, const char *name, struct pe_hfrope *r)
{
	char path[96];
	const cJSON *t, *tr;
	const char *type;
	int s;
	size_t i;

	snprintf(r->name, sizeof r->name, "%s", name);
	if (name[0])
		snprintf(path, sizeof path, "%s.%s", b->rp_path, name);
	else
		snprintf(path, sizeof path, "%s", b->rp_path);
	if (!cJSON_IsObject(d))
		return bad(b->c, name[0] ? b->rp_path : NULL, name[0] ? name : b->rp_path,
			   "an object", d);
	if (standardize(b, d, path, name[0] != 0) != 0)
		return -1;
	t = item(d, "rope_type");
	type = t->valuestring;
	s = pe_rope_scaling_by_name(type);
	if (s < 0 || strcmp(type, "none") == 0) {
		char shown[40];

		snprintf(shown, sizeof shown, "%s", type);
		pe_utf8_trim(shown);
		return pe_fail(b->c->err, PE_ERR_DATA,
			       "%s: unsupported %s.rope_type '%s' (transformers 5.18 knows default, linear, dynamic, yarn, llama3, longrope, proportional)",
			       b->c->name, path, shown);
	}
	if (validate(b, d, path, s == PE_ROPE_NONE ? "default" : type) != 0)
		return -1;
	r->scaling = (enum pe_rope_scaling)s;
	r->src[PE_HF_SCALING].origin = marked(b, d, "rope_type") ? marked(b, d, "rope_type")->origin
								  : PE_HF_GIVEN;
	snprintf(r->src[PE_HF_SCALING].key, sizeof r->src[0].key, "%s",
		 marked(b, d, "rope_type") && marked(b, d, "rope_type")->src[0]
			 ? marked(b, d, "rope_type")->src : path);
	if (!marked(b, d, "rope_type") || !marked(b, d, "rope_type")->src[0])
		snprintf(r->src[PE_HF_SCALING].key, sizeof r->src[0].key, "%s.rope_type", path);
	r->theta = 10000.0;
	r->partial_rotary_factor = 1.0;
	r->attention_factor = NAN;
	r->truncate = -1;
	if (take(b, d, path, r, PE_HF_THETA, NUM_POSITIVE, &r->theta) != 0 ||
	    take(b, d, path, r, PE_HF_PARTIAL, NUM_POSITIVE, &r->partial_rotary_factor) != 0 ||
	    take(b, d, path, r, PE_HF_FACTOR, NUM_POSITIVE, &r->factor) != 0 ||
	    take(b, d, path, r, PE_HF_ATTENTION, NUM_POSITIVE, &r->attention_factor) != 0 ||
	    take(b, d, path, r, PE_HF_BETA_FAST, NUM_NONNEG, &r->beta_fast) != 0 ||
	    take(b, d, path, r, PE_HF_BETA_SLOW, NUM_NONNEG, &r->beta_slow) != 0 ||
	    take(b, d, path, r, PE_HF_MSCALE, NUM_NONNEG, &r->mscale) != 0 ||
	    take(b, d, path, r, PE_HF_MSCALE_ALL_DIM, NUM_NONNEG, &r->mscale_all_dim) != 0 ||
	    take(b, d, path, r, PE_HF_LOW_FREQ, NUM_POSITIVE, &r->low_freq_factor) != 0 ||
	    take(b, d, path, r, PE_HF_HIGH_FREQ, NUM_POSITIVE, &r->high_freq_factor) != 0 ||
	    take(b, d, path, r, PE_HF_LLAMA4_BETA, NUM_NONNEG, &r->llama4_beta) != 0)
		return -1;
	{
		double om = 0;

		if (take(b, d, path, r, PE_HF_ORIGINAL_MAX, NUM_COUNT, &om) != 0)
			return -1;
		r->original_max = (uint64_t)om;
	}
	if (r->partial_rotary_factor > 1)
		return pe_fail(b->c->err, PE_ERR_DATA,
			       "%s: %s must be at most 1, got %g", b->c->name,
			       r->src[PE_HF_PARTIAL].key, r->partial_rotary_factor);
	/* transformers warns and takes 1.0: every pair turns, a linear scaling
	 * by another name -- never what a proportional config means */
	if (r->scaling == PE_ROPE_PROPORTIONAL && r->src[PE_HF_PARTIAL].origin == PE_HF_ABSENT)
		return pe_fail(b->c->err, PE_ERR_DATA,
			       "%s: %s is missing: proportional RoPE without it rotates every pair (transformers warns and takes 1.0, linear scaling by another name)",
			       b->c->name, r->src[PE_HF_PARTIAL].key);
	tr = item(d, "truncate");
	if (tr) {
		if (!cJSON_IsBool(tr))
			return bad(b->c, path, "truncate", "true or false", tr);
		/* read from the top-level dict only: a nested one always truncates */
		r->truncate = name[0] ? 1 : cJSON_IsTrue(tr);
		r->src[PE_HF_TRUNCATE].origin = PE_HF_GIVEN;
		snprintf(r->src[PE_HF_TRUNCATE].key, sizeof r->src[0].key, "%s.truncate", path);
	}
	if (list(b->c, d, path, "short_factor", &r->short_factor, &r->nshort) != 0 ||
	    list(b->c, d, path, "long_factor", &r->long_factor, &r->nlong) != 0)
		return -1;
	for (i = PE_HF_SHORT; i <= PE_HF_LONG; i++) {
		r->src[i].origin = item(d, dict_names[i]) ? PE_HF_GIVEN : PE_HF_ABSENT;
		snprintf(r->src[i].key, sizeof r->src[0].key, "%s.%s", path, dict_names[i]);
	}
	if (head_dim(b, r) != 0)
		return -1;
	mrope_keys(b, d, path, r);
	/* most families' default RoPE reads no partial rotary factor */
	r->partial_ignored = r->scaling == PE_ROPE_NONE && b->fam &&
			     !(b->fam->flags & PE_HF_PARTIAL_IN_DEFAULT) &&
			     r->src[PE_HF_PARTIAL].origin != PE_HF_ABSENT;
	/* longrope without factor: max_position_embeddings / L0 (yarn requires it) */
	if (r->scaling == PE_ROPE_LONGROPE && r->factor == 0 && r->original_max &&
	    (b->h->max_positions || (b->fam && b->fam->max_positions))) {
		r->factor = (double)(b->h->max_positions ? b->h->max_positions
							 : b->fam->max_positions) /
			    (double)r->original_max;
		r->src[PE_HF_FACTOR].origin = PE_HF_DERIVED;
		snprintf(r->src[PE_HF_FACTOR].key, sizeof r->src[0].key,
			 "%smax_position_embeddings / %.70s", b->h->prefix,
			 r->src[PE_HF_ORIGINAL_MAX].key);
	}
	if (r->scaling == PE_ROPE_LINEAR || r->scaling == PE_ROPE_DYNAMIC ||
	    r->scaling == PE_ROPE_LLAMA3) {
		if (r->factor == 0)
			return missing(b->c, path, "factor", "transformers requires it");
	}
	if (r->scaling == PE_ROPE_LONGROPE && r->factor == 0)
		return missing(b->c, path, "factor",
			       "nor is there max_position_embeddings to derive it");
	if (r->scaling == PE_ROPE_DYNAMIC) {
		/* dynamic scales relative to max_position_embeddings */
		if (!b->h->max_positions)
			return missing(b->c, NULL, "max_position_embeddings",
				       "dynamic scales relative to it");
		r->original_max = b->h->max_positions;
		r->src[PE_HF_ORIGINAL_MAX].origin = PE_HF_DERIVED;
		snprintf(r->src[PE_HF_ORIGINAL_MAX].key, sizeof r->src[0].key,
			 "%smax_position_embeddings", b->h->prefix);
	}
	if ((r->scaling == PE_ROPE_YARN || r->scaling == PE_ROPE_LLAMA3 ||
	     r->scaling == PE_ROPE_LONGROPE) && r->original_max == 0)
		return missing(b->c, NULL, "original_max_position_embeddings",
			       "nor is there max_position_embeddings");
	return 0;
}

/* GPT-J: rotary_dim (64 by default) of interleaved pairs, no RoPE dict. */
static int gptj(struct build *b)
{
	struct pe_hfrope *r = &b->h->rope[0];
	double v = 64;
	int present;

	if (number(b->c, b->text, NULL, "rotary_dim", NUM_COUNT, &v, &present) != 0)
		return -1;
	b->h->ntypes = 1;
	r->scaling = PE_ROPE_NONE;
	r->theta = 10000.0;
	r->partial_rotary_factor = 1.0;
	r->attention_factor = NAN;
	r->truncate = -1;
	r->rotary_dim = (uint64_t)v;
	r->src[PE_HF_THETA].origin = PE_HF_DEFAULT;
	snprintf(r->src[PE_HF_THETA].key, sizeof r->src[0].key, "%s", "(GPT-J's 10000)");
	return head_dim(b, r);
}

/* Which type each layer uses, NoPE layers, and the query scale. */
static int layers(struct build *b, int nested)
{
	struct pe_hfconfig *h = b->h;
	uint64_t i;
	size_t k, t;
	double v;
	int present;

	h->nlayers = b->types ? b->nlayers : 0;
	if (h->nlayers) {
		h->layer_rope = malloc(h->nlayers);
		h->layer_kind = malloc(h->nlayers);
		if (!h->layer_rope || !h->layer_kind)
			return nomem(b);
	}
	for (i = 0; i < h->nlayers; i++) {
		for (k = 0; k < h->nkinds && strcmp(h->kinds[k], b->types[i]) != 0; k++)
			;
		if (k == h->nkinds) {
			if (h->nkinds == sizeof h->kinds / sizeof h->kinds[0])
				return pe_fail(b->c->err, PE_ERR_DATA,
					       "%s: %slayer_types names more than %zu kinds of layer",
					       b->c->name, h->prefix, sizeof h->kinds / sizeof h->kinds[0]);
			snprintf(h->kinds[h->nkinds++], PE_HF_NAME_MAX, "%s", b->types[i]);
		}
		h->layer_kind[i] = (unsigned char)k;
		h->layer_rope[i] = 0;
		if (nested) {
			h->layer_rope[i] = -1;
			for (t = 0; t < h->ntypes; t++)
				if (strcmp(h->rope[t].name, b->types[i]) == 0)
					h->layer_rope[i] = (signed char)t;
		}
		if ((b->rule->nope == NOPE_LIST && !b->no_rope[i]) ||
		    (b->rule->nope == NOPE_NOT_SLIDING && strcmp(b->types[i], "sliding_attention") != 0))
			h->layer_rope[i] = -1;
	}
	if (strcmp(h->model_type, "llama4_text") == 0) {
		const cJSON *tt = item(b->text, "attn_temperature_tuning");

		h->floor_scale = 8192;
		h->attn_scale = 0.1;
		if (number(b->c, b->text, NULL, "floor_scale", NUM_POSITIVE, &h->floor_scale, &present) != 0)
			return -1;
		h->qgiven |= present ? PE_HF_QGIVEN_FLOOR : 0;
		if (number(b->c, b->text, NULL, "attn_scale", NUM_ANY, &h->attn_scale, &present) != 0)
			return -1;
		h->qgiven |= (present ? PE_HF_QGIVEN_ATTN : 0) | (tt ? PE_HF_QGIVEN_TUNING : 0);
		/* a bool field of a strict dataclass: 1 is refused too */
		if (tt && !cJSON_IsBool(tt))
			return bad(b->c, NULL, "attn_temperature_tuning", "true or false", tt);
		if (!tt || cJSON_IsTrue(tt))
			h->qscale = PE_HF_QSCALE_LLAMA4;
	}
	/* the families whose attention reads it (get_llama_4_attn_scale);
	 * elsewhere transformers warns that the key is unknown (validate) */
	for (t = 0; t < h->ntypes; t++)
		if (h->rope[t].llama4_beta > 0 && (strcmp(h->model_type, "ministral3") == 0 ||
						   strcmp(h->model_type, "mistral4") == 0)) {
			h->qscale = PE_HF_QSCALE_BETA;
			h->qbeta = h->rope[t].llama4_beta;
			h->qL0 = h->rope[t].original_max;
			h->qbeta_type = (int)t;
		}
	(void)v;
	(void)present;
	return 0;
}

/*
 * A dict nested by layer type: its keys are the layer types it gives a
 * RoPE (transformers' nested_rope_parameter_keys); any other key it
 * silently ignores, which hides a misspelt type (sliding_atention) or a
 * parameter written beside the types: refused, but for a type name no
 * layer of this config has (a warning).  A type the layers use and the
 * dict lacks is transformers' KeyError when it builds the rotary module
 * (null is the way to give a type no RoPE).
 */
static int check_nested(struct build *b)
{
	const cJSON *m;
	char layers[200];
	uint64_t i, j;

	cJSON_ArrayForEach(m, b->rp) {
		/* keys the class or the file's top level put there are not the
		 * dict's own */
		if (!m->string || is_layer_type(b, m->string) || marked(b, b->rp, m->string))
			continue;
		if (!allowed_type(m->string))
			return pe_fail(b->c->err, PE_ERR_DATA,
				       "%s: %s.%.60s is not a layer type of the config (its layer_types name the types a nested dict gives); transformers ignores the key",
				       b->c->name, b->rp_path, m->string);
		warn(b->h, "%s: %s.%.60s: no layer of the config is %.60s, so transformers never uses it",
		     b->c->name, b->rp_path, m->string, m->string);
	}
	for (i = 0; i < b->nlayers; i++) {
		if (cJSON_GetObjectItemCaseSensitive(b->rp, b->types[i]))
			continue;
		layers[0] = '\0';
		for (j = i; j < b->nlayers && strlen(layers) < sizeof layers - 24; j++)
			if (strcmp(b->types[j], b->types[i]) == 0)
				snprintf(layers + strlen(layers), sizeof layers - strlen(layers), "%s%llu",
					 layers[0] ? ", " : "", (unsigned long long)j);
		return pe_fail(b->c->err, PE_ERR_DATA,
			       "%s: %s has no %.60s, the type of layers %s (transformers raises KeyError building the rotary module; null gives a type no RoPE)",
			       b->c->name, b->rp_path, b->types[i], layers);
	}
	return 0;
}

/* per_layer_config's keys: layer indices below num_hidden_layers, each an
 * object (_apply_heterogeneous_config's ValueError, int() of the key). */
static int per_layer_keys(struct build *b)
{
	const cJSON *plc = item(b->text, "per_layer_config"), *m;
	char *end;
	long long k;

	if (!plc)
		return 0;
	if (!cJSON_IsObject(plc))
		return bad(b->c, NULL, "per_layer_config", "an object of layer indices", plc);
	cJSON_ArrayForEach(m, plc) {
		k = strtoll(m->string, &end, 10);
		if (!m->string[0] || *end || k < 0 || (b->nlayers && (uint64_t)k >= b->nlayers))
			return pe_fail(b->c->err, PE_ERR_DATA,
				       "%s: %sper_layer_config key '%.40s' is not a layer index from 0 to %llu (transformers refuses the config)",
				       b->c->name, b->h->prefix, m->string,
				       (unsigned long long)(b->nlayers ? b->nlayers - 1 : 0));
		if (!cJSON_IsObject(m))
			return bad(b->c, "per_layer_config", m->string, "an object", m);
	}
	return 0;
}

/* The decisions in transformers' order (see hfconfig.h). */
static int resolve(struct ctx *c, const cJSON *root, struct pe_hfconfig *h)
{
	struct build b;
	cJSON *m;
	int rc = -1, nested = 0;
	size_t n = 0;

	memset(&b, 0, sizeof b);
	b.c = c;
	b.h = h;
	if (model(c, root, &b) != 0 ||
	    count(c, b.text, NULL, "max_position_embeddings", &h->max_positions) != 0)
		goto out;
	if (!h->max_positions && b.fam)
		h->class_max_positions = b.fam->max_positions;
	if (strcmp(h->model_type, "gptj") == 0) {
		rc = gptj(&b);
		goto out;
	}
	if (layer_types(&b) != 0 || per_layer_keys(&b) != 0)
		goto out;
	if (b.rule->style == STYLE_GEMMA3 || b.rule->style == STYLE_MODERNBERT ||
	    b.rule->style == STYLE_OLMO3) {
		if (two_types(&b) != 0)
			goto out;
	} else if (one_dict(&b) != 0) {
		goto out;
	}
	/* nested when any key is a layer type (nested_rope_parameter_keys) */
	cJSON_ArrayForEach(m, b.rp)
		if (m->string && is_layer_type(&b, m->string))
			nested = 1;
	if (nested && check_nested(&b) != 0)
		goto out;
	if (nested) {
		cJSON_ArrayForEach(m, b.rp) {
			if (!m->string || !is_layer_type(&b, m->string) || cJSON_IsNull(m))
				continue;	/* a None dict: a NoPE layer type */
			if (n == PE_HF_MAX_TYPES) {
				pe_fail(c->err, PE_ERR_DATA, "%s: %s has more than %d layer types",
					c->name, b.rp_path, PE_HF_MAX_TYPES);
				goto out;
			}
			if (resolve_type(&b, m, m->string, &h->rope[n]) != 0)
				goto out;
			n++;
		}
	} else {
		if (resolve_type(&b, b.rp, "", &h->rope[0]) != 0)
			goto out;
		n = 1;
	}
	h->ntypes = n;
	rc = layers(&b, nested);
out:
	cJSON_Delete(b.rp);
	free(b.types);
	free(b.no_rope);
	return rc;
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

/*
 * Python's json reads NaN, Infinity and -Infinity (so transformers loads
 * them, and computes NaN tables); cJSON stops there.  When the parse stops
 * at one, the error names the key before it: 1 (with err set) or 0.
 */
static int nonfinite(const char *text, size_t len, size_t at, const char *name,
		     struct pe_error *err)
{
	static const char *const words[] = { "NaN", "Infinity", "-Infinity" };
	size_t k, w, n, q0, q1;
	const char *word = NULL;

	for (k = 0; k < 3; k++) {
		w = strlen(words[k]);
		if (at + w <= len && memcmp(text + at, words[k], w) == 0)
			word = words[k];
	}
	if (!word)
		return 0;
	/* back over blanks, ':' or ',' / '[' and the list, to the key's quotes */
	for (k = at, n = 0; k > 0 && n < 100000; k--, n++)
		if (text[k - 1] == ':')
			break;
	for (q1 = k ? k - 1 : 0; q1 > 0 && text[q1 - 1] != '"'; q1--)
		;
	for (q0 = q1 ? q1 - 1 : 0; q0 > 0 && text[q0 - 1] != '"'; q0--)
		;
	if (!k || !q1 || !q0 || q1 - q0 > 60)
		pe_fail(err, PE_ERR_DATA, "%s: %s at byte %zu: posenc needs finite numbers (Python's json reads it as a float)",
			name, word, at);
	else
		pe_fail(err, PE_ERR_DATA, "%s: %.*s is %s (at byte %zu): posenc needs a finite number (Python's json reads it, and transformers computes NaN tables from it)",
			name, (int)(q1 - 1 - q0), text + q0, word, at);
	return 1;
}

int pe_hfconfig_parse(const char *text, size_t len, const char *name, struct pe_hfconfig *c,
		      struct pe_error *err)
{
	struct ctx x = { name, err, NULL };
	const char *end = NULL;
	cJSON *root;
	int rc;

	memset(c, 0, sizeof *c);
	root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!root) {
		size_t at = end && end >= text ? (size_t)(end - text) : 0;

		if (nonfinite(text, len, at, name, err))
			return -1;
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

const char *pe_hfconfig_key(const struct pe_hfrope *r, const char *param)
{
	size_t i;

	for (i = 0; i < PE_HF_NPARAMS; i++)
		if (strcmp(param, pe_hf_param_names[i]) == 0)
			return r->src[i].key[0] ? r->src[i].key : NULL;
	return NULL;
}

int pe_hfconfig_layer(const struct pe_hfconfig *c, uint64_t k)
{
	return k < c->nlayers ? c->layer_rope[k] : -2;
}

int pe_hfconfig_type(const struct pe_hfconfig *c, const char *name)
{
	size_t t;

	for (t = 0; t < c->ntypes; t++)
		if (strcmp(c->rope[t].name, name) == 0)
			return (int)t;
	return -1;
}

const char *pe_hfconfig_layers_of(const struct pe_hfconfig *c, int t, char *buf, size_t n)
{
	size_t len = 0;
	uint64_t i, j;

	buf[0] = '\0';
	for (i = 0; i < c->nlayers; i = j) {
		if (c->layer_rope[i] != t) {
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < c->nlayers && c->layer_rope[j] == t; j++)
			;
		if (len < n)
			len += (size_t)snprintf(buf + len, n - len, "%s%llu", len ? ", " : "",
						(unsigned long long)i);
		if (len < n && j - i > 1)
			len += (size_t)snprintf(buf + len, n - len, "%s%llu", j - i > 2 ? "-" : ", ",
						(unsigned long long)(j - 1));
	}
	return buf;
}

void pe_hfconfig_free(struct pe_hfconfig *c)
{
	size_t t;

	for (t = 0; t < PE_HF_MAX_TYPES; t++) {
		free(c->rope[t].short_factor);
		free(c->rope[t].long_factor);
		c->rope[t].short_factor = c->rope[t].long_factor = NULL;
	}
	free(c->layer_rope);
	free(c->layer_kind);
	c->layer_rope = NULL;
	c->layer_kind = NULL;
}
