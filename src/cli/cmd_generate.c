/*
 * posenc generate KIND: parse options, build the kind's tensors (cli/gen.c
 * refuses options of other kinds rather than ignoring them), emit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/generate.h"
#include "cli/msg.h"

const struct pe_optdef pe_generate_opts[] = {
	{ NULL, 0, NULL, "Common:" },
	{ "preset", 0, "NAME", PE_GEN_PRESET_HELP },
	{ "precision", 0, "P", "exact (default): computed in double, rounded once; float32:\n"
			       "rope: transformers' float32 pipeline; sinusoidal (vaswani):\n"
			       "the PyTorch tutorial's float32 recipe" },
	PE_GEN_KIND_OPTDEFS,
	PE_OUTPUT_OPTDEFS,
	{ NULL, 0, NULL, NULL }
};
const size_t pe_generate_nopts = sizeof pe_generate_opts / sizeof pe_generate_opts[0] - 1;

const char pe_generate_usage[] =
	"Usage: posenc generate KIND [OPTIONS]\n"
	"Write a position-encoding table: one row per position, one column per\n"
	"dimension, float32, computed in double and rounded once.\n";

int pe_cmd_generate(int argc, char **argv)
{
	const char **values = NULL;
	char **ops = NULL;
	int nops = 0, rc;
	struct pe_error err = { PE_OK, "" };
	struct pe_gen g;
	struct pe_outopts out;
	struct pe_emit e;
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
	if (nops == 0) {
		pe_fail(&err, PE_ERR_USAGE, "missing KIND (one of: %s)", pe_gen_kind_list());
		goto fail;
	}
	if (nops > 1) {
		pe_fail(&err, PE_ERR_USAGE, "expected one KIND, got %d operands", nops);
		goto fail;
	}
	kind = pe_gen_kind_by_name(ops[0]);
	if (!kind) {
		pe_fail(&err, PE_ERR_USAGE, "unknown kind '%s' (one of: %s)", ops[0], pe_gen_kind_list());
		goto fail;
	}
	pe_meta_free(&g.meta);
	if (pe_gen_build(&g, kind, pe_generate_opts, pe_generate_nopts, values, NULL, &err) != 0)
		goto fail;
	pe_outopts_get(&out, pe_generate_opts, pe_generate_nopts, values);
	out.col_prefix = g.col_prefix;
	memset(&e, 0, sizeof e);
	e.so.row_origin = g.row_origin;
	e.so.xlabel = g.xlabel;
	e.so.ylabel = g.ylabel;
	if (pe_emit_prepare(&e, &out, &g.tensor[0], g.nt, &g.meta, &err) != 0 ||
	    pe_emit_run(&e, &out, g.tensor, g.nt, &g.meta, &err) != 0)
		goto fail;
	rc = PE_EXIT_OK;
	goto done;
fail:
	rc = pe_msg_report("generate", &err);
done:
	pe_gen_free(&g);
	free(ops);
	free(values);
	return rc;
}
