/* SPDX-License-Identifier: MIT */
/* cmd_symbols: extprof symbols OBJECT [GLOB]. */
#ifndef XP_CMD_SYMBOLS_H
#define XP_CMD_SYMBOLS_H

#include <stdio.h>

int cmd_symbols(int argc, char **argv);
void cmd_symbols_usage(FILE *out);

#endif
