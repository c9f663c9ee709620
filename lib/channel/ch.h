/*
 * ch.h - what the chat channels share beside the registry: the SQLite of
 * their ledgers (chdb.c) and the sent-ledger of a sender with its
 * receipts (chsent.c).  Included only by lib/channel/ files.
 */
#ifndef OXI_CH_H
#define OXI_CH_H

#include "oxi.h"

struct sqlite3;
struct sqlite3_stmt;

/*
 * chdb.c: a ledger's SQLite, each failure dying 111 with the ledger's
 * name ("ledger", "sent-ledger"): open file (in the state directory,
 * migrations, then pragma), prepare, run
 */
struct sqlite3 *ch_db_open(const char *file, const char *const *migrations,
    const char *name, const char *pragma);
struct sqlite3_stmt *ch_db_prep(struct sqlite3 *, const char *name,
    const char *sql);
void ch_db_exec(struct sqlite3 *, const char *name, const char *sql);
OXI_NORETURN void ch_db_die(struct sqlite3 *, const char *name,
    const char *what);

#endif
