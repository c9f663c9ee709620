/*
 * mcp.h - what the MCP client (mcp.c) and its JSON-RPC stdio transport
 * (mcprpc.c) share: a server as both keep it, and the transport's
 * functions.  Private to the tool wing: only lib/tool/mcp*.c include it.
 */
#ifndef OXI_TOOL_MCP_H
#define OXI_TOOL_MCP_H

#include <sys/types.h>

#include "oxi.h"
#include "tool/tooldef.h"

#define MCP_MODERN	"2026-07-28"	/* the stateless revision */

enum { RQ_OK, RQ_TIMEOUT, RQ_DEAD };

struct server {
	char *name;		/* sanitised name from the configuration */
	char *key;		/* the name as written there, and pinned */
	jv ent;			/* its configuration entry, as loaded */
	char *taint;		/* "mcp:NAME" */
	char **argv;		/* command and args */
	jv env;			/* its "env", an object or null */
	int net;		/* sandbox.network */
	char **ro;		/* sandbox.ro and the command's directory */
	long timeout;		/* per request, ms */
	struct oxi_child c;	/* the process, c.pid -1 when down */
	struct oxi_buf rd;	/* bytes of stdout not yet a whole line */
	struct oxi_buf el;	/* a partial line of stderr */
	int modern;		/* speaks 2026-07-28 */
	char version[16];	/* the revision agreed */
	long nextid;		/* of our next request */
	int fails;		/* starts or calls failed in a row */
	long long retry;	/* no restart before this clock_ms */
	int code;		/* exit code once reaped */
};

/* writes a message (consumed) to the server's stdin before end */
int mcp_tell(struct server *, jv msg, long long end);
/* 1 once pid has exited (not reaped) */
int mcp_gone(pid_t pid);
/* marks the server down: reaped, with its exit code noted */
void mcp_down(struct server *, long ms);
/*
 * Sends a request (params consumed) and waits until end for its answer,
 * a JSON-RPC response in *res.  RQ_OK, RQ_TIMEOUT, or RQ_DEAD (the
 * server exited or broke the protocol; it is down then).
 */
int mcp_request(struct server *, const char *method, jv params,
    long long end, jv *res);
/* the error of a response as one line in buf, or NULL if it has none */
const char *mcp_rpcerr(jv res, char *buf, size_t len);

#endif
