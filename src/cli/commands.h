/* commands.h - the command table's entries (one cmd_<name>.c each). */
#ifndef PE_COMMANDS_H
#define PE_COMMANDS_H

#include <stddef.h>

#include "cli/opt.h"

int pe_cmd_generate(int argc, char **argv);
extern const struct pe_optdef pe_generate_opts[];
extern const size_t pe_generate_nopts;
extern const char pe_generate_usage[];

int pe_cmd_similarity(int argc, char **argv);
extern const struct pe_optdef pe_similarity_opts[];
extern const size_t pe_similarity_nopts;
extern const char pe_similarity_usage[];
extern const char *const pe_similarity_presets[];

int pe_cmd_skew(int argc, char **argv);
extern const struct pe_optdef pe_skew_opts[];
extern const size_t pe_skew_nopts;
extern const char pe_skew_usage[];

int pe_cmd_bucket(int argc, char **argv);
extern const struct pe_optdef pe_bucket_opts[];
extern const size_t pe_bucket_nopts;
extern const char pe_bucket_usage[];

#endif
