/*
 * chdb.c - the SQLite of the channels' ledgers (the receivers' and the
 * senders'): opened in the state directory, and every failure fatal
 * (111), naming the ledger; a receiver's ledger and files' directory,
 * its small values (its meta table) and the records of an event written
 */
#include <errno.h>
#include <stdio.h>

#include <sqlite3.h>

#include "oxi.h"
#include "channel/ch.h"

void
ch_db_die(sqlite3 *db, const char *name, const char *what)
{
	oxi_die(OXI_EX_TEMP, "%s: %s: %s", name, what, sqlite3_errmsg(db));
}

sqlite3 *
ch_db_open(const char *file, const char *const *migrations,
    const char *name, const char *pragma)
{
	const char *dir = oxi_state_dir(), *err;
	struct oxi_buf p = OXI_BUF_INIT;
	sqlite3 *db;

	if (!dir)
		oxi_die(OXI_EX_USAGE, "no state directory: set OXI_HOME");
	oxi_buf_printf(&p, "%s/%s", dir, file);
	if (!(db = oxi_db_open(p.s, migrations, &err)))
		oxi_die(oxi_errtemp(errno), "unable to open the %s '%s': %s",
		    name, p.s, err);
	oxi_buf_free(&p);
	ch_db_exec(db, name, pragma);
	return db;
}

sqlite3_stmt *
ch_db_prep(sqlite3 *db, const char *name, const char *sql)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		ch_db_die(db, name, "unable to prepare");
	return st;
}

void
ch_db_exec(sqlite3 *db, const char *name, const char *sql)
{
	const char *err;

	if (oxi_db_exec(db, sql, &err) < 0)
		oxi_die(OXI_EX_TEMP, "%s: %s", name, err);
}

sqlite3 *
ch_db_ledger(const char *channel, const char *account,
    const char *const *migrations, char **filedir)
{
	struct oxi_buf p = OXI_BUF_INIT;
	sqlite3 *db;

	oxi_buf_printf(&p, "%s-%s.db", channel, account);
	/* what the platform forgets once told must survive a power cut */
	db = ch_db_open(p.s, migrations, "ledger", "PRAGMA synchronous=FULL");
	oxi_buf_reset(&p);
	oxi_buf_printf(&p, "%s/files/%s", oxi_state_dir(), channel);
	*filedir = xstrdup(p.s);
	oxi_buf_free(&p);
	return db;
}

void
ch_db_meta(sqlite3 *db, const char *name, const char *k, char *buf,
    size_t len)
{
	sqlite3_stmt *st = ch_db_prep(db, name, "SELECT v FROM meta WHERE "
	    "k = ?");

	buf[0] = '\0';
	sqlite3_bind_text(st, 1, k, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(st,
		    0));
	sqlite3_finalize(st);
}

void
ch_db_setmeta(sqlite3 *db, const char *name, const char *k, const char *v)
{
	sqlite3_stmt *st = ch_db_prep(db, name, "INSERT OR REPLACE INTO "
	    "meta(k, v) VALUES(?, ?)");

	sqlite3_bind_text(st, 1, k, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, v, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_DONE)
		ch_db_die(db, name, "unable to write");
	sqlite3_finalize(st);
}

int
ch_records(jv out)
{
	int i, n = jv_array_length(jv_copy(out));

	for (i = 0; i < n; i++)
		if (oxi_nd_write(1, jv_array_get(jv_copy(out), i)) < 0) {
			jv_free(out);
			return -1;
		}
	jv_free(out);
	return 0;
}
