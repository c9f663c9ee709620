/*
 * chdb.c - the SQLite of the channels' ledgers (the receivers' and the
 * senders'): opened in the state directory, and every failure fatal
 * (111), naming the ledger
 */
#include <errno.h>

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
