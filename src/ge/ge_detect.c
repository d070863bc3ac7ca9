/* ge_detect.c — what a file is, from its first bytes (ge.h): protobuf text
 * whose top level holds a graph of ops (a GE ModelDef), or of nodes, or
 * ONNX's own top-level fields (a ModelProto in text); anything else —
 * a binary protobuf first of all — is neither. Only the first 64 KiB are
 * looked at, with the text reader's lexer, its errors thrown away. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "base/input_file.h"
#include "ge/ge.h"
#include "ge/pbtxt_lex.h"

#define DETECT_BYTES ((size_t)64 << 10)

static bool is(const pbtxt_token *t, const char *word)
{
	return t->kind == TOK_IDENT && t->n == strlen(word) && !memcmp(t->s, word, t->n);
}

ge_format ge_detect(const void *data, size_t size)
{
	if (!data || !size)
		return GE_FORMAT_NONE;
	fd_diags quiet;
	diags_init(&quiet);
	pbtxt_lexer lx;
	pbtxt_lex_init(&lx, "", data, size < DETECT_BYTES ? size : DETECT_BYTES, &quiet);
	ge_format found = GE_FORMAT_NONE;
	pbtxt_token t, prev = { 0 };
	int depth = 0;
	bool in_graph = false, first = true;
	while (found == GE_FORMAT_NONE && !pbtxt_lex_next(&lx, &t) && t.kind != TOK_EOF) {
		if (first && t.kind != TOK_IDENT)
			break;   /* text format starts with a field name */
		first = false;
		bool opens = t.kind == TOK_PUNCT && (t.punct == '{' || t.punct == '<');
		bool item = depth == 1 && in_graph && (is(&prev, "op") || is(&prev, "node"));
		if (item && (opens || (t.kind == TOK_PUNCT && t.punct == ':'))) {
			found = is(&prev, "op") ? GE_FORMAT_MODELDEF : GE_FORMAT_ONNX_TEXT;
		} else if (opens) {
			if (depth == 0)
				in_graph = is(&prev, "graph");
			depth++;
		} else if (t.kind == TOK_PUNCT && (t.punct == '}' || t.punct == '>')) {
			depth--;
		} else if (depth == 0 && (is(&t, "ir_version") || is(&t, "opset_import") || is(&t, "producer_name"))) {
			found = GE_FORMAT_ONNX_TEXT;
		}
		prev = t;
	}
	pbtxt_lex_release(&lx);
	diags_release(&quiet);
	return found;
}

ge_format ge_detect_file(const char *path)
{
	fd_diags quiet;
	diags_init(&quiet);
	int fd;
	int64_t size;
	ge_format found = GE_FORMAT_NONE;
	if (input_open(path, &INPUT_LIMIT_MODEL, &fd, &size, &quiet) == 0) {
		char *buf = xmalloc(DETECT_BYTES);
		ssize_t n = read(fd, buf, DETECT_BYTES);
		close(fd);
		found = n > 0 ? ge_detect(buf, (size_t)n) : GE_FORMAT_NONE;
		free(buf);
	}
	diags_release(&quiet);
	return found;
}
