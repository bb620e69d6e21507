/* The command table: it drives dispatch, `posenc --help` and the man-page
 * test.  Adding a command = one cmd_<name>.c, one row here, one man page. */
#include "cli/commands.h"
#include "cli/generate.h"

const struct pe_command pe_commands[] = {
	{ "generate", "write a position-encoding table (sinusoidal, learned, rope, alibi, sincos2d)",
	  pe_generate_usage, pe_gen_kinds_help, pe_generate_opts, pe_cmd_generate },
	{ "similarity", "position-wise similarity of a table's rows, or its statistics",
	  pe_similarity_usage, pe_gen_kinds_help, pe_similarity_opts, pe_cmd_similarity },
	{ "skew", "relative logits to absolute positions and back (Music Transformer's skew)",
	  pe_skew_usage, NULL, pe_skew_opts, pe_cmd_skew },
	{ "bucket", "relative positions as T5, DeBERTa or Swin bucket ids, or their gathered bias",
	  pe_bucket_usage, NULL, pe_bucket_opts, pe_cmd_bucket },
};
const size_t pe_ncommands = sizeof pe_commands / sizeof pe_commands[0];
