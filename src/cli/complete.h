/* complete.h - shell completion scripts, from the command and option tables. */
#ifndef PE_COMPLETE_H
#define PE_COMPLETE_H

#include <stdio.h>

/* Print the completion script for shell ("bash" or "zsh"); -1 for another. */
int pe_complete_print(FILE *fp, const char *shell);

#endif
