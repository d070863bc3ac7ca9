/* cmd_apply.c — `fusiondbg apply MODEL -r RULES -o FUSED.onnx`. Owner: h5. */
#include <stdio.h>
#include "cli.h"

int cmd_apply(int argc, char **argv)
{
	fprintf(stderr, "fusiondbg: apply: not yet\n");
	return EXIT_BAD_INPUT;
}
