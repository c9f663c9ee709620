/*
 * disk.h - the disk a tool call that writes may take, per call, per
 * workspace and short of a reserve (disk.c, whose header says how):
 * shared by the tools that write (fs.c, find.c, shell.c)
 * and the loop of the children (child.c).  oxi_sbx_run samples a shell
 * command through oxi_disk_watch.  Included by lib/tool/ only.
 */
#ifndef OXI_TOOL_DISK_H
#define OXI_TOOL_DISK_H

#include "oxi.h"
#include "tool/tooldef.h"

#define OXI_DISK_MS	50	/* how often a running command is sampled */
enum { OXI_DISK_LIMIT = 1, OXI_DISK_LOW = 2 };	/* why a call must stop */
struct oxi_disk {
	int ws;			/* the workspace measured */
	long long limit;	/* bytes the call may take; 0: no limit */
	long long reserve;	/* bytes it leaves free; 0: none */
	long long avail0;	/* bytes free at the start; -1: not known */
	long long drop;		/* how far that fell, at the last sample */
	int over;		/* 0, or OXI_DISK_*: why it must stop */
	int killed;		/* the watch killed the command */
};
/* d for a call on workspace ws: its bounds, the free space now */
void oxi_disk_start(struct oxi_disk *d, int ws);
/* oxi_disk_start; -1 (an error result) if a call writing want bytes (-1:
 * a command) is refused by the reserve or the bounds, else 0 */
int oxi_disk_begin(struct oxi_tool_call *, struct oxi_disk *, long long want);
/* samples the free space: 1 once the call must stop (d->over set) */
int oxi_disk_over(struct oxi_disk *);
/* why it must stop, one line in buf ("" if it need not) */
char *oxi_disk_why(const struct oxi_disk *, char *buf, size_t n);
/* after the call: the figure of the workspace updated, and "\n[note:
 * ...]" appended to note if the workspace is now over its bound */
void oxi_disk_end(struct oxi_disk *, struct oxi_buf *note);
/* struct oxi_sbx's watch (arg: the call's struct oxi_disk): 1 once
 * the command must be killed, d->killed set */
int oxi_disk_watch(void *d);

#endif
