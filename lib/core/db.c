/* db.c - SQLite: open with WAL and a busy timeout, migrate, exec */
#include <errno.h>
#include <stdio.h>

#include <sqlite3.h>

#include "oxi.h"

static int
seterr(sqlite3 *db, int rc, const char **err)
{
	*err = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
	switch (rc & 0xff) {
	case SQLITE_BUSY: case SQLITE_LOCKED: case SQLITE_NOMEM:
	case SQLITE_IOERR: case SQLITE_FULL: case SQLITE_PROTOCOL:
		errno = EAGAIN;
		break;
	case SQLITE_CANTOPEN:
		errno = errno ? errno : ENOENT;
		break;
	default:
		errno = EINVAL;
	}
	return -1;
}

int
oxi_db_exec(sqlite3 *db, const char *sql, const char **err)
{
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	if (rc != SQLITE_OK)
		return seterr(db, rc, err);
	return 0;
}

sqlite3 *
oxi_db_open(const char *path, const char *const *mig, const char **err)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st;
	int rc, have, i;
	char sql[64];

	errno = 0;
	rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		goto fail;
	sqlite3_busy_timeout(db, 5000);
	if (oxi_db_exec(db, "PRAGMA journal_mode=WAL;"
	    "PRAGMA synchronous=NORMAL;PRAGMA foreign_keys=ON;", err) < 0)
		goto failed;
	rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
	if (rc != SQLITE_OK)
		goto fail;
	have = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
	sqlite3_finalize(st);
	for (i = 0; mig && mig[i]; i++) {
		if (i < have)
			continue;
		if (oxi_db_exec(db, "BEGIN IMMEDIATE", err) < 0)
			goto failed;
		snprintf(sql, sizeof sql, "PRAGMA user_version=%d", i + 1);
		if (oxi_db_exec(db, mig[i], err) < 0 ||
		    oxi_db_exec(db, sql, err) < 0 ||
		    oxi_db_exec(db, "COMMIT", err) < 0) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			goto failed;
		}
	}
	return db;
fail:
	seterr(db, rc, err);
failed:
	/* keep the message: it lives in db, which we must not close yet */
	if (db) {
		static char msg[256];

		snprintf(msg, sizeof msg, "%s", *err);
		*err = msg;
		sqlite3_close(db);
	}
	return NULL;
}
