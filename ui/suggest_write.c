/* suggest_write.c — rules that suggest makes, added to the session: the
 * rule of a suggested pattern (the suggest view's w) or of a chain marked
 * in the graph view (m on its start, m on its end, then w), each as a new
 * rule file beside the rule set (session_new_rule_path: NAME.yaml in the
 * first rules directory), a what-if like any edit. The marks are the graph
 * view's own. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "loop.h"
#include "view.h"

/* The file a rule goes to: its name in lower case ("Suggested_Conv_Relu"
 * -> suggested_conv_relu.yaml), in the first rules directory. */
static void rule_path(tui *t, const char *name, char *buf, size_t size)
{
	char low[256];
	size_t i = 0;
	for (; name[i] && i + 1 < sizeof low; i++)
		low[i] = isalnum((unsigned char)name[i]) ? (char)tolower((unsigned char)name[i]) : '_';
	low[i] = '\0';
	session_new_rule_path(&t->s, low, buf, size);
}

unsigned tui_write_pattern_rule(tui *t, const fd_suggest_pattern *p)
{
	char path[4096], what[sizeof path + 512];
	rule_path(t, p->rule_name, path, sizeof path);
	fd_diags d;
	diags_init(&d);
	tui_before_run(t);
	int rc = session_add_rule_file(&t->s, path, p->rule_yaml, &d);
	snprintf(what, sizeof what, "added rule %s as %s (it fires on %d chain%s)", p->rule_name, path,
	         p->n_instances, p->n_instances == 1 ? "" : "s");
	unsigned res = tui_after_edit(t, rc, &d, what);
	diags_release(&d);
	return res;
}
