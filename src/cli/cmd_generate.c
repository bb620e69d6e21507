/*
 * posenc generate KIND: parse options, validate, build the kind's tensors,
 * emit.  Every kind shares one option table so `posenc generate --help`
 * shows all of them; options that do not belong to the chosen kind are
 * refused rather than ignored.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/emit.h"
#include "cli/commands.h"
#include "cli/generate.h"
#include "cli/msg.h"
#include "core/tensor.h"

const struct pe_optdef pe_generate_opts[] = {
	{ NULL, 0, NULL, "Common:" },
	{ "positions", 'n', "N", "number of positions (rows), default 512" },
	{ "dim", 'd', "D", "embedding width (columns), default 768" },
	{ "offset", 0, "P", "first position (sinusoidal, rope), default 0; may be negative" },
	{ "preset", 0, "NAME", "sinusoidal: vaswani (default), t2t, fairseq, marian\n"
			       "learned: gpt2, bert, fairseq, scaled\n"
			       "sincos2d: mae (default), timm" },
	{ "padding-idx", 0, "P", "fairseq: table of N+P+1 rows whose row P is zero" },
	{ NULL, 0, NULL, "Sinusoidal:" },
	{ "layout", 0, "L", "interleaved (sin,cos,sin,...) or half ([sin|cos]);\n"
			    "overrides the preset's (rope: half (default) or interleaved)" },
	{ "base", 0, "B", "frequency base, default 10000 (t2t: alias of --max-timescale;\n"
			  "also sincos2d)" },
	{ "min-timescale", 0, "T", "t2t: smallest timescale, default 1" },
	{ "max-timescale", 0, "T", "t2t: largest timescale, default 10000" },
	{ NULL, 0, NULL, "Learned:" },
	{ "init", 0, "DIST", "normal (default), trunc-normal (redraw beyond 2 std), uniform" },
	{ "std", 0, "S", "standard deviation, default 0.02 (preset may change it)" },
	{ "seed", 0, "N", "random seed, 0..2^64-1, default 0: same seed, same bytes" },
	{ NULL, 0, NULL, "Rope (-d is the head dim):" },
	{ "table", 0, "T", "rope: cos (default), sin, inv-freq, angles, all\n"
			   "alibi: bias (default), slopes" },
	{ "theta", 0, "B", "rotary base (rope_theta), default 10000" },
	{ "rotary-dim", 0, "R", "rotary width R (even, <= head dim), default the head dim" },
	{ "partial-rotary-factor", 0, "F", "R = int(head dim * F), 0 < F <= 1" },
	{ "scaling", 0, "TYPE", "none (default), linear, dynamic, yarn, llama3, longrope" },
	{ "factor", 0, "F", "scaling factor" },
	{ "original-max-positions", 0, "L", "pre-training context length L0" },
	{ "seq-len", 0, "L", "dynamic, longrope: sequence length, default offset + N" },
	{ "beta-fast", 0, "B", "yarn: default 32" },
	{ "beta-slow", 0, "B", "yarn: default 1" },
	{ "mscale", 0, "M", "yarn: attention factor numerator weight" },
	{ "mscale-all-dim", 0, "M", "yarn: attention factor denominator weight" },
	{ "truncate", 0, NULL, "yarn: floor/ceil the correction range (default)" },
	{ "no-truncate", 0, NULL, "yarn: keep the correction range fractional" },
	{ "attention-factor", 0, "A", "yarn, longrope: replace the derived attention factor" },
	{ "low-freq-factor", 0, "F", "llama3: default 1" },
	{ "high-freq-factor", 0, "F", "llama3: default 4" },
	{ "short-factor", 0, "LIST", "longrope: R/2 comma-separated factors" },
	{ "long-factor", 0, "LIST", "longrope: R/2 factors, used when seq-len > L0" },
	{ "precision", 0, "P", "exact (default) or float32 (transformers' float32 pipeline)" },
	{ "from-config", 0, "FILE", "read a Hugging Face config.json; options override it" },
	{ NULL, 0, NULL, "Alibi:" },
	{ "heads", 0, "H", "number of heads, default 8" },
	{ "head", 0, "K", "only head K's N x N bias (0-based)" },
	{ "form", 0, "F", "causal (default: -m(i-j), 0 above), symmetric (-m|i-j|), bloom (+m j)" },
	{ "alibi-bias-max", 0, "B", "slopes 2^(-B k/H), default 8 (MPT's alibi_bias_max)" },
	{ NULL, 0, NULL, "Sincos2d (-d is the width D, divisible by 4):" },
	{ "grid", 0, "HxW", "patch grid: H rows, W columns (rows of the table: H*W)" },
	{ "cls-token", 0, NULL, "prepend an all-zero row (MAE)" },
	PE_OUTPUT_OPTDEFS,
	{ NULL, 0, NULL, NULL }
};
const size_t pe_generate_nopts = sizeof pe_generate_opts / sizeof pe_generate_opts[0] - 1;

static const char *const common_options[] = { "positions", "dim", "output", "format", "force",
					      "rows", "header", "help", NULL };

static const struct pe_gen_kind kinds[] = {
	{ "sinusoidal", "fixed sin/cos table (Vaswani, tensor2tensor, fairseq, Marian)",
	  pe_gen_sinusoidal_options, pe_gen_sinusoidal },
	{ "learned", "seeded random initialisation of a learned table",
	  pe_gen_learned_options, pe_gen_learned },
	{ "rope", "rotary cos/sin tables, inv_freq, every Hugging Face scaling",
	  pe_gen_rope_options, pe_gen_rope },
	{ "alibi", "ALiBi slopes and attention biases",
	  pe_gen_alibi_options, pe_gen_alibi },
	{ "sincos2d", "2-D sin/cos table of an image patch grid (MAE, timm)",
	  pe_gen_sincos2d_options, pe_gen_sincos2d },
};

const char pe_generate_usage[] =
	"Usage: posenc generate KIND [OPTIONS]\n"
	"Write a position-encoding table: one row per position, one column per\n"
	"dimension, float32, computed in double and rounded once.\n"
	"\n"
	"Kinds:\n"
	"  sinusoidal   fixed sin/cos table (Vaswani, tensor2tensor, fairseq, Marian)\n"
	"  learned      seeded random initialisation of a learned table\n"
	"  rope         rotary cos/sin tables, inv_freq, every Hugging Face scaling\n"
	"  alibi        ALiBi slopes and attention biases\n"
	"  sincos2d     2-D sin/cos table of an image patch grid (MAE, timm)\n";

const char *pe_gen_val(const struct pe_gen *g, const char *name)
{
	int i = pe_opt_index(g->defs, g->ndefs, name);

	return i < 0 ? NULL : g->values[i];
}

static int listed(const char *const *list, const char *name)
{
	for (; *list; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

static const struct pe_gen_kind *find_kind(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kinds[i].name, name) == 0)
			return &kinds[i];
	return NULL;
}

int pe_cmd_generate(int argc, char **argv)
{
	const char **values = NULL;
	char **ops = NULL;
	int nops = 0, rc;
	size_t i;
	struct pe_error err = { PE_OK, "" };
	struct pe_gen g;
	struct pe_outopts out;
	const struct pe_gen_kind *kind;

	memset(&g, 0, sizeof g);
	pe_meta_init(&g.meta);
	values = calloc(pe_generate_nopts, sizeof *values);
	if (!values) {
		pe_fail(&err, PE_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if (pe_opt_parse(argc, argv, pe_generate_opts, pe_generate_nopts, values, &ops, &nops,
			 &err) != 0)
		goto fail;
	if (nops != 1) {
		pe_fail(&err, PE_ERR_USAGE, nops ? "expected one KIND, got %d operands"
						 : "missing KIND (sinusoidal, learned, rope, alibi or sincos2d)", nops);
		goto fail;
	}
	kind = find_kind(ops[0]);
	if (!kind) {
		pe_fail(&err, PE_ERR_USAGE, "unknown kind '%s' (one of: sinusoidal, learned, rope, alibi, sincos2d)",
			ops[0]);
		goto fail;
	}
	for (i = 0; i < pe_generate_nopts; i++) {
		const char *name = pe_generate_opts[i].name;

		if (values[i] && name && !listed(common_options, name) && !pe_outopt_is(name) &&
		    !listed(kind->options, name)) {
			pe_fail(&err, PE_ERR_USAGE, "--%s does not apply to %s", name, kind->name);
			goto fail;
		}
	}
	g.defs = pe_generate_opts;
	g.ndefs = pe_generate_nopts;
	g.values = values;
	g.positions = 512;
	g.dim = 768;
	g.col_prefix = "d";
	if (pe_opt_u64("positions", pe_gen_val(&g, "positions"), 1, (uint64_t)1 << 40,
		       &g.positions, &err) != 0 ||
	    pe_opt_u64("dim", pe_gen_val(&g, "dim"), 1, PE_MAX_COLS, &g.dim, &err) != 0)
		goto fail;
	if (g.positions > PE_MAX_ELEMS / g.dim) {
		pe_fail(&err, PE_ERR_USAGE, "a table of %llu x %llu values is too large to address",
			(unsigned long long)g.positions, (unsigned long long)g.dim);
		goto fail;
	}
	if (kind->build(&g, &err) != 0)
		goto fail;
	pe_outopts_get(&out, pe_generate_opts, pe_generate_nopts, values);
	out.col_prefix = g.col_prefix;
	rc = pe_emit("generate", &out, g.tensor, g.nt, &g.meta);
	goto done;
fail:
	rc = pe_msg_report("generate", &err);
done:
	if (g.free_state)
		g.free_state(g.state);
	pe_meta_free(&g.meta);
	free(ops);
	free(values);
	return rc;
}
