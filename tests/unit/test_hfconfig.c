/*
 * The config.json reader: the files in tests/data (one per rope type, a v5
 * rope_parameters one, GPT-NeoX and GPT-J) resolve as transformers
 * resolves them; bad files give one PE_ERR_DATA line naming the field.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/hfconfig.h"
#include "testutil.h"

static void read_ok(const char *rel, struct pe_hfconfig *c)
{
	struct pe_error err = { PE_OK, "" };

	if (pe_hfconfig_read(pe_source_path(rel), c, &err) != 0)
		fail_msg("%s: %s", rel, err.msg);
}

/* parse text, expect a data error whose message contains want */
static void parse_bad(const char *text, const char *want)
{
	struct pe_hfconfig c;
	struct pe_error err = { PE_OK, "" };

	assert_int_equal(pe_hfconfig_parse(text, strlen(text), "x.json", &c, &err), -1);
	pe_hfconfig_free(&c);
	if (err.code != PE_ERR_DATA || !strstr(err.msg, want) || strchr(err.msg, '\n'))
		fail_msg("for %s: got '%s', wanted '%s'", text, err.msg, want);
}

/* Python's json keeps the last of a repeated key, in every object; text
 * after the object is an error, blanks are not. */
static void test_duplicates_and_trailing(void **state)
{
	static const char dup[] =
		"{\"rope_theta\": 10000, \"hidden_size\": 64, \"num_attention_heads\": 4,"
		" \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 2, \"factor\": 8},"
		" \"rope_theta\": 500000}\n\t \r\n";
	struct pe_hfconfig c;
	struct pe_error err = { PE_OK, "" };

	(void)state;
	assert_int_equal(pe_hfconfig_parse(dup, strlen(dup), "x.json", &c, &err), 0);
	assert_true(c.rope[0].theta == 500000.0);
	assert_true(c.rope[0].factor == 8.0);
	assert_int_equal(c.duplicates, 2);
	assert_string_equal(c.duplicate, "rope_theta");	/* the first in the text */
	pe_hfconfig_free(&c);
	parse_bad("{\"rope_theta\": 10000} x", "more text after the object, at byte 22");
	parse_bad("{\"rope_theta\": 10000}{}", "more text after the object, at byte 21");
}

/* 200,000 keys, every 1000th written twice, and a repeated key in a nested
 * object before them: the same survivors, count and first path as the
 * pairwise rule, in well under a second (that rule took 65 s). */
static void test_many_keys(void **state)
{
	size_t n = pe_test_quick() ? 20000 : 200000, i, at = 0, size = 64 + n * 40;
	char *text = malloc(size);
	struct pe_hfconfig c;
	struct pe_error err = { PE_OK, "" };
	clock_t t0;
	double cpu;

	(void)state;
	assert_non_null(text);
	at += (size_t)snprintf(text + at, size - at,
			       "{\"a\": {\"x\": 1, \"y\": [{\"z\": 1, \"z\": 2}], \"x\": 2}, \"rope_theta\": 1");
	for (i = 0; i < n; i++)
		at += (size_t)snprintf(text + at, size - at, ", \"k%zu\": %zu", i, i);
	for (i = 0; i < n; i += 1000)
		at += (size_t)snprintf(text + at, size - at, ", \"k%zu\": -1", i);
	at += (size_t)snprintf(text + at, size - at,
			       ", \"rope_scaling\": {\"rope_type\": \"linear\", \"factor\": 2, \"factor\": 3},"
			       " \"hidden_size\": 64, \"num_attention_heads\": 4, \"rope_theta\": 500000}");
	assert_true(at < size);
	t0 = clock();
	assert_int_equal(pe_hfconfig_parse(text, at, "x.json", &c, &err), 0);
	cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
	assert_true(c.rope[0].theta == 500000.0);
	assert_true(c.rope[0].factor == 3.0);
	assert_int_equal(c.rope[0].head_dim, 16);
	/* a.x, a.y.z (inside the kept a), rope_theta, n / 1000 k's, factor */
	assert_int_equal(c.duplicates, 2 + 1 + n / 1000 + 1);
	assert_string_equal(c.duplicate, "a.x");
	pe_hfconfig_free(&c);
	/* no time limit here (speed is make bench's, and a hang is
	 * t_reliability.sh's, under a timeout): the CPU time for the log */
	print_message("%zu keys: %.3f s of CPU\n", n, cpu);
	free(text);
}

/* a long value is never cut inside a UTF-8 character (reliability-2.md
 * finding 14: 40 e-acutes ended the message with a lone 0xc3), nor is a
 * duplicate key's path */
static void test_utf8_not_cut(void **state)
{
	char text[600], *p, key[200];
	struct pe_hfconfig c;
	struct pe_error err = { PE_OK, "" };
	int i, k;

	(void)state;
	for (k = 0; k < 3; k++) {
		p = text + sprintf(text, "{\"rope_scaling\": {\"rope_type\": \"%.*s", k, "xx");
		for (i = 0; i < 40; i++)
			p += sprintf(p, "\xc3\xa9");
		strcpy(p, "\"}}");
		assert_int_equal(pe_hfconfig_parse(text, strlen(text), "x.json", &c, &err), -1);
		pe_hfconfig_free(&c);
		p = strstr(err.msg, "rope_type '");
		assert_non_null(p);
		p += strlen("rope_type '") + k;
		while ((unsigned char)*p >= 0x80) {
			assert_true((unsigned char)p[0] == 0xc3 && (unsigned char)p[1] == 0xa9);
			p += 2;
		}
		assert_int_equal(strncmp(p, "' (transformers 5.18 knows", 26), 0);

		/* a 61-byte key of e-acutes after k x's, written twice */
		p = key + sprintf(key, "%.*s", k, "xx");
		for (i = 0; i < 31; i++)
			p += sprintf(p, "\xc3\xa9");
		snprintf(text, sizeof text, "{\"%s\": 1, \"%s\": 2}", key, key);
		assert_int_equal(pe_hfconfig_parse(text, strlen(text), "x.json", &c, &err), 0);
		assert_int_equal(c.duplicates, 1);
		assert_true(strlen(c.duplicate) <= 60 && strlen(c.duplicate) >= 59);
		for (p = c.duplicate + k; *p; p += 2)
			assert_true((unsigned char)p[0] == 0xc3 && (unsigned char)p[1] == 0xa9);
		pe_hfconfig_free(&c);
	}
}

static void test_default(void **state)
{
	struct pe_hfconfig c;

	(void)state;
	read_ok("tests/data/rope_default.json", &c);
	assert_true(c.has_rope);
	assert_int_equal(c.rope[0].scaling, PE_ROPE_NONE);
	assert_true(c.rope[0].theta == 10000.0);
	assert_int_equal(c.rope[0].head_dim, 128);
	assert_true(c.rope[0].partial_rotary_factor == 1.0);
	assert_int_equal(c.max_positions, 4096);
	pe_hfconfig_free(&c);
}

/* DeepSeek's softmax scale reads qk_nope_head_dim + qk_rope_head_dim (192
 * for V3); Llama's attention has no such scale; which queries Llama 4's
 * temperature tuning keys the file gives */
static void test_mla_and_query_keys(void **state)
{
	static const char ds[] =
		"{\"model_type\": \"deepseek_v3\", \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64,"
		" \"qk_head_dim\": 7, \"rope_theta\": 10000}";
	static const char llama[] = "{\"model_type\": \"llama\", \"rope_theta\": 10000, \"head_dim\": 64}";
	static const char l4[] =
		"{\"model_type\": \"llama4_text\", \"head_dim\": 64, \"floor_scale\": 4096,"
		" \"num_hidden_layers\": 4}";
	struct pe_hfconfig c;
	struct pe_error err = { PE_OK, "" };

	(void)state;
	assert_int_equal(pe_hfconfig_parse(ds, strlen(ds), "x.json", &c, &err), 0);
	assert_true(c.mscale_softmax);
	assert_int_equal(c.qk_head_dim, 192);
	assert_string_equal(c.qk_key, "qk_nope_head_dim + qk_rope_head_dim");
	pe_hfconfig_free(&c);
	assert_int_equal(pe_hfconfig_parse(llama, strlen(llama), "x.json", &c, &err), 0);
	assert_false(c.mscale_softmax);
	assert_int_equal(c.qk_head_dim, 0);
	pe_hfconfig_free(&c);
	assert_int_equal(pe_hfconfig_parse(l4, strlen(l4), "x.json", &c, &err), 0);
	assert_int_equal(c.qscale, PE_HF_QSCALE_LLAMA4);
	assert_int_equal(c.qgiven, PE_HF_QGIVEN_FLOOR);
	assert_true(c.floor_scale == 4096 && c.attn_scale == 0.1);
	pe_hfconfig_free(&c);
}

static void test_linear_legacy_type(void **state)
{
	struct pe_hfconfig c;

	(void)state;
	read_ok("tests/data/rope_linear.json", &c);
	assert_int_equal(c.rope[0].scaling, PE_ROPE_LINEAR);
	assert_true(c.rope[0].factor == 4.0);
	assert_int_equal(c.rope[0].head_dim, 128);
	pe_hfconfig_free(&c);
}

static void test_dynamic(void **state)
{
	struct pe_hfconfig c;

	(void)state;
	read_ok("tests/data/rope_dynamic.json", &c);
	assert_int_equal(c.rope[0].scaling, PE_ROPE_DYNAMIC);
	assert_true(c.rope[0].factor == 2.0);
	/* dynamic scales relative to max_position_embeddings */
	assert_int_equal(c.rope[0].original_max, 2048);
	pe_hfconfig_free(&c);
}

static void test_yarn(void **state)
{
	struct pe_hfconfig c;

	(void)state;
	read_ok("tests/data/rope_yarn.json", &c);
	assert_int_equal(c.rope[0].scaling, PE_ROPE_YARN);
	assert_true(c.rope[0].factor == 4.0);
	assert_int_equal(c.rope[0].original_max, 4096);
	assert_int_equal(c.rope[0].truncate, -1);
	assert_true(isnan(c.rope[0].attention_factor));
	pe_hfconfig_free(&c);
}

static void test_llama3(void **state)
{
	struct pe_hfconfig c;

	(void)state;
	read_ok("tests/data/rope_llama3.json", &c);
	assert_int_equal(c.rope[0].scaling, PE_ROPE_LLAMA3);
	assert_true(c.rope[0].theta == 500000.0 && c.rope[0].factor == 8.0);
	assert_true(c.rope[0].low_freq_factor == 1.0 && c.rope[0].high_freq_factor == 4.0);
	assert_int_equal(c.rope[0].original_max, 8192);
	assert_int_equal(c.rope[0].head_dim, 128);
	pe_hfconfig_free(&c);
}

static void test_longrope(void **state)
{
	struct pe_hfconfig c;

	(void)state;
	read_ok("tests/data/rope_longrope.json", &c);
	assert_int_equal(c.rope[0].scaling, PE_ROPE_LONGROPE);
	assert_int_equal(c.rope[0].head_dim, 96);
	assert_int_equal(c.rope[0].nshort, 48);
	assert_int_equal(c.rope[0].nlong, 48);
	assert_true(c.rope[0].long_factor[2] == 2.0);
	/* Phi-3: the top-level original_max_position_embeddings, factor
	 * derived as max / original = 131072 / 4096 */
	assert_int_equal(c.rope[0].original_max, 4096);
	assert_true(c.rope[0].factor == 32.0);
	pe_hfconfig_free(&c);
}

static void test_v5_parameters(void **state)
{
	struct pe_hfconfig c;

	(void)state;
	read_ok("tests/data/rope_v5.json", &c);
	assert_string_equal(pe_hfconfig_key(&c.rope[0], "factor"), "rope_parameters.factor");
	assert_int_equal(c.rope[0].scaling, PE_ROPE_YARN);
	assert_true(c.rope[0].theta == 1000000.0);
	assert_true(c.rope[0].partial_rotary_factor == 0.5);
	assert_int_equal(c.rope[0].truncate, 0);
	assert_true(c.rope[0].beta_fast == 16.0 && c.rope[0].beta_slow == 0.0);
	assert_int_equal(c.rope[0].original_max, 8192);
	pe_hfconfig_free(&c);
}

static void test_gpt_neox(void **state)
{
	struct pe_hfconfig c;

	(void)state;
	read_ok("tests/data/rope_neox.json", &c);
	assert_true(c.rope[0].partial_rotary_factor == 0.25);
	assert_int_equal(c.rope[0].src[PE_HF_PARTIAL].origin, PE_HF_GIVEN);
	assert_int_equal(c.rope[0].head_dim, 64);
	assert_true(c.rope[0].theta == 10000.0);
	pe_hfconfig_free(&c);
	read_ok("tests/data/rope_neox_nopct.json", &c);
	assert_true(c.rope[0].partial_rotary_factor == 0.25);
	assert_int_equal(c.rope[0].src[PE_HF_PARTIAL].origin, PE_HF_DEFAULT);
	pe_hfconfig_free(&c);
}

static void test_gptj(void **state)
{
	struct pe_hfconfig c;

	(void)state;
	read_ok("tests/data/rope_gptj.json", &c);
	assert_int_equal(c.rope[0].rotary_dim, 64);
	assert_int_equal(c.rope[0].head_dim, 256);
	assert_true(c.interleaved);
	pe_hfconfig_free(&c);
}

static void test_bad_files(void **state)
{
	struct pe_hfconfig c;
	struct pe_error err;
	const struct {
		const char *file, *want;
	} bad[] = {
		{ "tests/data/rope_bad_missing.json", "is missing" },
		{ "tests/data/rope_bad_type.json", "rope_theta must be a number, got '\"10000\"'" },
		{ "tests/data/rope_bad_factor.json", "rope_scaling.factor must be a number" },
		{ "tests/data/rope_bad_unknown.json", "rope_type 'su'" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(pe_hfconfig_read(pe_source_path(bad[i].file), &c, &err), -1);
		pe_hfconfig_free(&c);
		assert_int_equal(err.code, PE_ERR_DATA);
		if (!strstr(err.msg, bad[i].want))
			fail_msg("%s: got '%s'", bad[i].file, err.msg);
	}
	read_ok("tests/data/rope_bad_norope.json", &c);
	assert_false(c.has_rope);
	pe_hfconfig_free(&c);
	assert_int_equal(pe_hfconfig_read("/nonexistent/config.json", &c, &err), -1);
	assert_int_equal(err.code, PE_ERR_IO);
	pe_hfconfig_free(&c);
}

static void test_bad_values(void **state)
{
	(void)state;
	parse_bad("", "not valid JSON");
	parse_bad("{\"rope_theta\": 1e4,", "not valid JSON");
	parse_bad("[1, 2]", "not a JSON object");
	parse_bad("{\"rope_theta\": -5}", "rope_theta must be a positive number");
	parse_bad("{\"rope_theta\": 1e999}", "rope_theta must be a finite number");
	parse_bad("{\"rope_theta\": 1e4, \"head_dim\": 64.5}", "head_dim must be a positive integer");
	parse_bad("{\"rope_theta\": 1e4, \"max_position_embeddings\": -1}",
		  "max_position_embeddings must be a positive integer");
	parse_bad("{\"rope_scaling\": {\"type\": \"linear\"}}", "rope_scaling.factor is missing");
	parse_bad("{\"rope_scaling\": {\"rope_type\": 3}}", "rope_scaling.rope_type must be a string");
	parse_bad("{\"rope_scaling\": [1]}", "rope_scaling must be an object");
	parse_bad("{\"rope_scaling\": {\"type\": \"yarn\", \"factor\": 2, \"truncate\": 1}, "
		  "\"max_position_embeddings\": 8}", "rope_scaling.truncate must be true or false");
	parse_bad("{\"max_position_embeddings\": 8, \"rope_scaling\": {\"type\": \"longrope\", "
		  "\"short_factor\": [1, \"x\"], \"long_factor\": [1, 2]}}",
		  "short_factor must be a list of positive numbers (item 1)");
	/* transformers' KeyError comes first */
	parse_bad("{\"rope_scaling\": {\"type\": \"longrope\", \"short_factor\": [1, \"x\"]}}",
		  "rope_scaling.long_factor is missing (transformers requires it for rope_type longrope)");
	parse_bad("{\"rope_scaling\": {\"type\": \"llama3\", \"factor\": 8, \"low_freq_factor\": 1}, "
		  "\"max_position_embeddings\": 8192}", "high_freq_factor is missing");
	parse_bad("{\"rope_theta\": 1e4, \"partial_rotary_factor\": 1.5}", "at most 1");
}

/* per_layer_config (transformers 5.18's heterogeneous configs, what
 * save_pretrained writes for Gemma 4's global_head_dim): the head dim of a
 * type's layers, the global one for types it leaves alone; Gemma 4 without
 * it takes global_head_dim for its full layers (512 by default). */
static void test_per_layer_config(void **state)
{
	static const char g4[] =
		"{\"model_type\": \"gemma4_text\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		" \"head_dim\": 64, \"num_hidden_layers\": 6, \"global_head_dim\": 512,"
		" \"per_layer_config\": {\"5\": {\"head_dim\": 128}}}";
	static const char g4_global[] =
		"{\"model_type\": \"gemma4_text\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		" \"head_dim\": 64, \"num_hidden_layers\": 12, \"global_head_dim\": 256}";
	static const char g4_mixed[] =
		"{\"model_type\": \"gemma4_text\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		" \"head_dim\": 64, \"num_hidden_layers\": 12,"
		" \"per_layer_config\": {\"5\": {\"head_dim\": 128}, \"11\": {\"head_dim\": 256}}}";
	struct pe_hfconfig c;
	struct pe_error err = { PE_OK, "" };
	int full, sliding;

	(void)state;
	assert_int_equal(pe_hfconfig_parse(g4, strlen(g4), "x.json", &c, &err), 0);
	full = pe_hfconfig_type(&c, "full_attention");
	sliding = pe_hfconfig_type(&c, "sliding_attention");
	assert_true(full >= 0 && sliding >= 0);
	assert_int_equal(c.rope[full].head_dim, 128);
	assert_string_equal(pe_hfconfig_key(&c.rope[full], "head_dim"), "per_layer_config.5.head_dim");
	assert_int_equal(c.rope[sliding].head_dim, 64);
	pe_hfconfig_free(&c);
	assert_int_equal(pe_hfconfig_parse(g4_global, strlen(g4_global), "x.json", &c, &err), 0);
	assert_int_equal(c.rope[pe_hfconfig_type(&c, "full_attention")].head_dim, 256);
	pe_hfconfig_free(&c);
	parse_bad(g4_mixed, "per_layer_config gives the full_attention layers different overrides");
	parse_bad("{\"model_type\": \"gemma4_text\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		  " \"num_hidden_layers\": 6, \"per_layer_config\": {\"5\": {\"head_dim\": 0.5}}}",
		  "per_layer_config.5.head_dim must be a positive integer");
	parse_bad("{\"model_type\": \"gemma4_text\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		  " \"num_hidden_layers\": 6, \"per_layer_config\": [1]}",
		  "per_layer_config must be an object of layer indices");
}

/* Which key of the file sets each parameter core's messages name: the one
 * read, or where it would be read. */
static void test_keys(void **state)
{
	static const struct {
		const char *text, *param, *key;
	} cases[] = {
		{ "{\"rope_theta\": 5}", "theta", "rope_theta" },
		{ "{\"model_type\": \"gpt_neox\", \"rotary_emb_base\": 5}", "theta", "rotary_emb_base" },
		/* GPT-NeoX reads rotary_emb_base, not rope_theta; the others the reverse */
		{ "{\"model_type\": \"gpt_neox\", \"rotary_emb_base\": 5, \"rope_theta\": 6}", "theta",
		  "rotary_emb_base" },
		{ "{\"rotary_emb_base\": 5, \"rope_theta\": 6}", "theta", "rope_theta" },
		{ "{\"rope_theta\": 5, \"rope_parameters\": {\"rope_theta\": 6}}", "theta",
		  "rope_parameters.rope_theta" },
		{ "{\"head_dim\": 8}", "theta", "rope_theta" },
		{ "{\"rope_scaling\": {\"type\": \"linear\", \"factor\": 2}}", "factor",
		  "rope_scaling.factor" },
		{ "{\"rope_scaling\": {\"type\": \"linear\", \"factor\": 2}}", "scaling",
		  "rope_scaling.type" },
		{ "{\"rope_parameters\": {\"rope_type\": \"linear\", \"factor\": 2}}", "scaling",
		  "rope_parameters.rope_type" },
		{ "{\"head_dim\": 8}", "beta_fast", "rope_parameters.beta_fast" },
		{ "{\"max_position_embeddings\": 8, \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 2, "
		  "\"original_max_position_embeddings\": 4}}", "original_max_positions",
		  "rope_scaling.original_max_position_embeddings" },
		{ "{\"max_position_embeddings\": 8, \"original_max_position_embeddings\": 4, "
		  "\"rope_scaling\": {\"type\": \"yarn\", \"factor\": 2}}", "original_max_positions",
		  "original_max_position_embeddings" },
		{ "{\"max_position_embeddings\": 8, \"rope_scaling\": {\"type\": \"dynamic\", \"factor\": 2}}",
		  "original_max_positions", "max_position_embeddings" },
	};
	struct pe_hfconfig c;
	struct pe_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(pe_hfconfig_parse(cases[i].text, strlen(cases[i].text), "x.json", &c,
						   &err), 0);
		if (!pe_hfconfig_key(&c.rope[0], cases[i].param) ||
		    strcmp(pe_hfconfig_key(&c.rope[0], cases[i].param), cases[i].key) != 0)
			fail_msg("%s: %s is '%s', wanted '%s'", cases[i].text, cases[i].param,
				 pe_hfconfig_key(&c.rope[0], cases[i].param), cases[i].key);
		pe_hfconfig_free(&c);
	}
	assert_int_equal(pe_hfconfig_parse("{}", 2, "x.json", &c, &err), 0);
	assert_null(pe_hfconfig_key(&c.rope[0], "positions"));
	pe_hfconfig_free(&c);
}

/* the size bound: a file over 16 MiB is refused before parsing */
/* multimodal RoPE: the flat Qwen2-VL and Qwen2.5-VL files (read into their
 * text config, rope type "mrope" read as "default") and the nested Qwen3-VL
 * one; the family's facts from transformers' code */
static void test_mrope(void **state)
{
	static const char bad[] =
		"{\"model_type\": \"qwen2_vl\", \"hidden_size\": 64, \"num_attention_heads\": 4,"
		" \"rope_scaling\": {\"type\": \"mrope\", \"mrope_section\": [1, 2.5, 3]}}";
	struct pe_hfconfig c;
	struct pe_error err = { PE_OK, "" };

	(void)state;
	read_ok("tests/data/mrope_qwen2_vl.json", &c);
	assert_int_equal(c.ntypes, 1);
	assert_int_equal(c.rope[0].scaling, PE_ROPE_NONE);
	assert_string_equal(c.rope[0].src[PE_HF_SCALING].key, "rope_scaling.type");
	assert_true(c.rope[0].theta == 1e6 && c.rope[0].head_dim == 128);
	assert_int_equal(c.rope[0].nsection, 3);
	assert_true(c.rope[0].mrope_section[0] == 16 && c.rope[0].mrope_section[1] == 24 &&
		    c.rope[0].mrope_section[2] == 24);
	assert_string_equal(c.rope[0].mrope_section_key, "rope_scaling.mrope_section");
	assert_int_equal(c.rope[0].mrope_interleaved, -1);
	assert_int_equal(c.mrope, PE_HF_MROPE_CHUNKS);
	assert_true(!c.mrope_split && !c.mrope_timed && c.family_known);
	assert_true(c.spatial_merge == 2 && c.tokens_per_second == 0);
	assert_int_equal(c.nwarn, 0);
	pe_hfconfig_free(&c);

	read_ok("tests/data/mrope_qwen2_5_vl.json", &c);
	assert_true(c.mrope == PE_HF_MROPE_CHUNKS && c.mrope_timed && !c.mrope_split);
	assert_true(c.tokens_per_second == 2 && c.rope[0].head_dim == 128);
	pe_hfconfig_free(&c);

	read_ok("tests/data/mrope_qwen3_vl.json", &c);
	assert_string_equal(c.prefix, "text_config.");
	assert_true(c.mrope == PE_HF_MROPE_INTERLEAVE && c.mrope_split && !c.mrope_timed);
	assert_true(c.rope[0].theta == 5e6 && c.rope[0].mrope_interleaved == 1);
	assert_true(c.rope[0].mrope_section[0] == 24 && c.rope[0].mrope_section[2] == 20);
	assert_string_equal(c.rope[0].mrope_section_key, "text_config.rope_scaling.mrope_section");
	assert_int_equal(c.spatial_merge, 2);
	assert_int_equal(c.nwarn, 0);
	pe_hfconfig_free(&c);

	/* transformers does not validate mrope_section: read, marked bad */
	assert_int_equal(pe_hfconfig_parse(bad, strlen(bad), "x.json", &c, &err), 0);
	assert_true(c.rope[0].nsection == PE_HF_MROPE_BAD);
	assert_string_equal(c.rope[0].mrope_section_text, "[1,2.5,3]");
	pe_hfconfig_free(&c);
	parse_bad("{\"vision_config\": {\"spatial_merge_size\": 1.5}}",
		  "x.json: vision_config.spatial_merge_size must be a positive integer (at most 2^40), got '1.5'");
	parse_bad("{\"vision_config\": {\"tokens_per_second\": -2}}",
		  "x.json: vision_config.tokens_per_second must be a positive number, got '-2'");
}

static void test_too_large(void **state)
{
	char *path = pe_temp_path(".json");
	struct pe_hfconfig c;
	struct pe_error err;
	FILE *fp;
	size_t i;

	(void)state;
	fp = fopen(path, "wb");
	assert_non_null(fp);
	fputs("{\"x\": \"", fp);
	for (i = 0; i < (PE_HFCONFIG_MAX_BYTES >> 10) + 1; i++)
		fprintf(fp, "%01024d", 0);
	fputs("\"}", fp);
	fclose(fp);
	assert_int_equal(pe_hfconfig_read(path, &c, &err), -1);
	assert_int_equal(err.code, PE_ERR_DATA);
	assert_non_null(strstr(err.msg, "larger than 16 MiB"));
	pe_hfconfig_free(&c);
	remove(path);
	free(path);
}

/* Issue 21's bad configs: what transformers 5.18 refuses (ValueError,
 * KeyError, a strict dataclass field's type) or silently reads otherwise
 * than the file says; one line naming the file's key. */
static void test_bad_configs(void **state)
{
	static const char nested_ok[] =
		"{\"hidden_size\": 64, \"num_attention_heads\": 4, \"num_hidden_layers\": 2,"
		" \"layer_types\": [\"sliding_attention\", \"attention\"],"
		" \"rope_parameters\": {\"sliding_attention\": {\"rope_type\": \"default\", \"rope_theta\": 1e4},"
		" \"full_attention\": {\"rope_type\": \"default\", \"rope_theta\": 1e6},"
		" \"chunked_attention\": {\"rope_type\": \"default\", \"rope_theta\": 5}}}";
	struct pe_hfconfig c;
	struct pe_error err = { PE_OK, "" };
	size_t i;
	int warned = 0;

	(void)state;
	parse_bad("{\"rope_theta\": 1e4, \"text_config\": [1]}", "text_config must be an object or null");
	parse_bad("{\"rope_theta\": 1e4, \"num_hidden_layers\": 3,"
		  " \"layer_types\": [\"full_attention\", \"full_attention\"]}",
		  "layer_types has 2 entries, num_hidden_layers is 3");
	parse_bad("{\"rope_theta\": 1e4, \"layer_types\": [\"full_attention\", \"sliding_atention\"]}",
		  "layer_types[1] 'sliding_atention' is not a layer type of transformers 5.18");
	/* MLP layer types are mlp_layer_types' names, not layer_types' */
	parse_bad("{\"rope_theta\": 1e4, \"layer_types\": [\"dense\"]}", "layer_types[0] 'dense'");
	parse_bad("{\"model_type\": \"smollm3\", \"hidden_size\": 64, \"num_attention_heads\": 4,"
		  " \"num_hidden_layers\": 2, \"no_rope_layers\": [1, 0.5]}",
		  "no_rope_layers must be a list of integers (item 1), got '0.5'");
	parse_bad("{\"rope_scaling\": {\"type\": 2, \"factor\": 2}}", "rope_scaling.type must be a string");
	parse_bad("{\"model_type\": \"gpt_neox\", \"rotary_emb_base\": \"1e4\"}",
		  "rotary_emb_base must be a number, got '\"1e4\"'");
	parse_bad("{\"head_dim\": 64, \"rope_parameters\": {\"rope_type\": \"proportional\", \"rope_theta\": 1e6}}",
		  "partial_rotary_factor is missing: proportional RoPE without it rotates every pair");
	parse_bad("{\"model_type\": \"llama4_text\", \"hidden_size\": 64, \"num_attention_heads\": 4,"
		  " \"attn_temperature_tuning\": 1}", "attn_temperature_tuning must be true or false, got '1'");
	/* nested by layer type: a key that is no layer type, a type left out */
	parse_bad("{\"hidden_size\": 64, \"num_attention_heads\": 4, \"num_hidden_layers\": 2,"
		  " \"layer_types\": [\"sliding_attention\", \"full_attention\"],"
		  " \"rope_parameters\": {\"sliding_attention\": {\"rope_type\": \"default\", \"rope_theta\": 1e4},"
		  " \"full_attention\": {\"rope_type\": \"default\", \"rope_theta\": 1e6}, \"factor\": 8}}",
		  "rope_parameters.factor is not a layer type of the config");
	parse_bad("{\"hidden_size\": 64, \"num_attention_heads\": 4, \"num_hidden_layers\": 3,"
		  " \"layer_types\": [\"sliding_attention\", \"full_attention\", \"full_attention\"],"
		  " \"rope_parameters\": {\"sliding_attention\": {\"rope_type\": \"default\", \"rope_theta\": 1e4}}}",
		  "rope_parameters has no full_attention, the type of layers 1, 2");
	/* per_layer_config's keys are layer indices */
	parse_bad("{\"model_type\": \"gemma4_text\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		  " \"num_hidden_layers\": 6, \"per_layer_config\": {\"6\": {\"head_dim\": 128}}}",
		  "per_layer_config key '6' is not a layer index from 0 to 5");
	parse_bad("{\"model_type\": \"gemma4_text\", \"hidden_size\": 256, \"num_attention_heads\": 4,"
		  " \"num_hidden_layers\": 6, \"per_layer_config\": {\"x\": {}}}",
		  "per_layer_config key 'x' is not a layer index");
	/* Python's json reads NaN and Infinity */
	parse_bad("{\"rope_theta\": NaN}", "rope_theta is NaN (at byte 15)");
	parse_bad("{\"rope_scaling\": {\"type\": \"linear\", \"factor\": -Infinity}}",
		  "factor is -Infinity");
	/* the legacy name is read as its new one; a type no layer has is a warning */
	assert_int_equal(pe_hfconfig_parse(nested_ok, strlen(nested_ok), "x.json", &c, &err), 0);
	assert_true(pe_hfconfig_type(&c, "full_attention") >= 0);
	assert_true(c.rope[pe_hfconfig_type(&c, "full_attention")].theta == 1e6);
	for (i = 0; i < c.nwarn; i++)
		warned |= strstr(c.warn[i], "rope_parameters.chunked_attention: no layer of the config") != NULL;
	assert_true(warned);
	pe_hfconfig_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duplicates_and_trailing),
		cmocka_unit_test(test_many_keys),
		cmocka_unit_test(test_utf8_not_cut),
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_linear_legacy_type),
		cmocka_unit_test(test_dynamic),
		cmocka_unit_test(test_yarn),
		cmocka_unit_test(test_llama3),
		cmocka_unit_test(test_longrope),
		cmocka_unit_test(test_v5_parameters),
		cmocka_unit_test(test_gpt_neox),
		cmocka_unit_test(test_gptj),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_too_large),
		cmocka_unit_test(test_mrope),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_per_layer_config),
		cmocka_unit_test(test_bad_configs),
		cmocka_unit_test(test_mla_and_query_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
