/*
 * posenc generate KIND: parse, bind the kind's options (options of other
 * kinds are refused, not ignored), build its tensors, emit.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/emit.h"
#include "cli/gen.h"
#include "cli/msg.h"
#include "cli/param.h"

struct generate_opts {
	const char *preset;
	int precision;
};

static const struct pe_optdef rows[] = {
	{ PE_HEADING("Common:") },
	{ PE_TEXT("preset", 0, "NAME", offsetof(struct generate_opts, preset),
		  "the kind's preset: its section below lists them") },
	{ PE_CHOICE("precision", 0, "P", offsetof(struct generate_opts, precision),
		    pe_gen_precisions,
		    "exact (default): computed in double, rounded once; float32:\n"
		    "PyTorch's float32 pipeline -- rope: transformers'; sinusoidal:\n"
		    "the PyTorch tutorial's (vaswani), fairseq's get_embedding") },
	{ 0 }
};

static const char usage[] =
	"Usage: posenc generate KIND [OPTIONS]\n"
	"Write a position-encoding table: one row per position, one column per\n"
	"dimension, float32, computed in double and rounded once.\n";

/* Values from which a run shows progress on a terminal: 2^25 (128 MiB of
 * float32, a few tenths of a second and more). */
#define PROGRESS_MIN_VALUES ((uint64_t)1 << 25)

static void progress(void *arg, uint64_t done, uint64_t total)
{
	pe_msg_progress("generate", done, total, arg);
}

static int generate(const struct pe_command *cmd, int argc, char **argv)
{
	struct pe_error err = { PE_OK, "" };
	struct pe_args a;
	struct generate_opts o = { 0 };
	struct pe_gen g;
	struct pe_outopts out;
	struct pe_emit e;
	const struct pe_gen_kind *kind;
	const char *w;
	uint64_t elems;
	size_t i;
	int rc, last = -1;

	memset(&g, 0, sizeof g);
	pe_meta_init(&g.meta);
	if (pe_command_parse(cmd, &a, argc, argv, &err) != 0 ||
	    pe_gen_operand(&a, pe_gen_kind_list(), &kind, &err) != 0 || pe_args_bind(&a, rows, &o, &err) != 0 ||
	    pe_outopts_bind(&out, &a, &err) != 0 || pe_gen_bind(&g, kind, &a, &err) != 0)
		goto fail;
	/* --preset is the kind's (generate's own row only names it first) */
	if ((w = pe_args_unbound(&a)) || (o.preset && pe_args_binds(&a, &o.preset) < 2 && (w = "preset")) ||
	    (pe_args_given(&a, &o.precision) && !kind->float32 && (w = "precision"))) {
		pe_fail(&err, PE_ERR_USAGE, "--%s does not apply to %s", w, kind->name);
		goto fail;
	}
	g.float32 = o.precision == 1;
	if (pe_gen_build(&g, &err) != 0)
		goto fail;
	out.col_prefix = g.col_prefix;
	memset(&e, 0, sizeof e);
	e.so.row_origin = g.row_origin;
	e.so.xlabel = g.xlabel;
	e.so.ylabel = g.ylabel;
	if (pe_emit_prepare(&e, &out, &g.tensor[0], g.nt, &g.meta, &err) != 0)
		goto fail;
	/* a long run shows how far it is on a terminal, as similarity does */
	for (i = 0, elems = 0; i < g.nt; i++)
		elems += pe_tensor_elems(&g.tensor[i]);
	if (elems >= PROGRESS_MIN_VALUES && isatty(STDERR_FILENO)) {
		e.pump.progress = progress;
		e.pump.progress_arg = &last;
	}
	if (pe_emit_run(&e, &out, g.tensor, g.nt, &g.meta, &err) != 0)
		goto fail;
	rc = PE_EXIT_OK;
	goto done;
fail:
	pe_param_explain(&err, &a, NULL);
	rc = pe_msg_report("generate", &err);
done:
	pe_gen_free(&g);
	pe_args_free(&a);
	return rc;
}

const struct pe_command pe_cmd_generate = {
	"generate", "write a position-encoding table", usage, rows,
	PE_CMD_KINDS | PE_CMD_OUTPUT | PE_CMD_SUMMARY_KINDS, generate
};
