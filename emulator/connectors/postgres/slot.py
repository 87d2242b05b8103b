"""Server-side setup the connector owns: the publication (publication.autocreate.mode), replica identities
(replica.identity.autoset.values), the replication slot's state and its drop on stop."""

from __future__ import annotations

import logging
import time

import psycopg
from psycopg import sql

from emulator.connectors.postgres import pgoutput as po
from emulator.connectors.postgres.replication import ReplicationError

log = logging.getLogger("emulator.postgres")


class SlotManagement:
    """Publication, replica identity and slot management (a mixin of PostgresConnector)."""

    def _ensure_publication(self) -> None:
        mode = self.typed.postgres.publication_autocreate_mode
        exists = self.conn.execute(
            "SELECT 1 FROM pg_publication WHERE pubname = %s", (self.publication,)
        ).fetchone()
        name = sql.Identifier(self.publication)
        if mode == "disabled":
            if not exists:
                raise RuntimeError(
                    f"publication {self.publication!r} does not exist and "
                    "publication.autocreate.mode=disabled"
                )
            return
        with_ = self._publication_with()
        if mode == "all_tables":
            if not exists:
                self.conn.execute(sql.SQL("CREATE PUBLICATION {} FOR ALL TABLES{}").format(name, with_))
            return
        if mode == "no_tables":
            if not exists:
                self.conn.execute(sql.SQL("CREATE PUBLICATION {}{}").format(name, with_))
            return
        if mode == "filtered":
            tables = self._filtered_tables()
            if not tables:
                raise RuntimeError("publication.autocreate.mode=filtered but no table matches the filters")
            tl = sql.SQL(", ").join(sql.Identifier(s, t) for s, t in tables)
            if exists:
                self.conn.execute(sql.SQL("ALTER PUBLICATION {} SET TABLE {}").format(name, tl))
            else:
                self.conn.execute(sql.SQL("CREATE PUBLICATION {} FOR TABLE {}{}").format(name, tl, with_))
            return
        raise RuntimeError(
            f"publication.autocreate.mode {mode!r} is not one of all_tables, disabled, filtered, no_tables"
        )

    def _publication_with(self) -> sql.Composable:
        """The WITH clause Debezium creates its publication with: publish_via_partition_root (changes of
        partitions published as the root table's), and `publish` without the operations that
        skipped.operations names when it is set explicitly."""
        opts = []
        if self.typed.postgres.publish_via_partition_root:
            opts.append(sql.SQL("publish_via_partition_root = true"))
        # only when the property is set: Debezium checks the configuration has the key, not its default
        if self.typed.common.skipped_operations_set and self.skipped:
            ops = [
                n
                for op, n in (("c", "insert"), ("u", "update"), ("d", "delete"), ("t", "truncate"))
                if op not in self.skipped
            ]
            opts.append(sql.SQL("publish = {}").format(sql.Literal(",".join(ops))))
        return sql.SQL(" WITH ({})").format(sql.SQL(", ").join(opts)) if opts else sql.SQL("")

    def _autoset_replica_identity(self) -> None:
        """replica.identity.autoset.values: `<table regex>:<DEFAULT|FULL|NOTHING|INDEX name>`, comma
        separated; applied with ALTER TABLE when streaming starts (after the snapshot), as Debezium does."""
        entries = self.typed.postgres.replica_identity_autoset  # parsed and checked by the settings
        if not entries:
            return
        tables = self._filtered_tables()
        for entry in entries:
            ident = entry.identity if entry.index is None else f"{entry.identity} {entry.index}"
            if entry.index is not None:
                clause = sql.SQL("USING INDEX {}").format(sql.Identifier(entry.index))
            else:
                clause = sql.SQL(entry.identity)
            for schema, table in tables:
                if entry.pattern.fullmatch(f"{schema}.{table}"):
                    self.conn.execute(
                        sql.SQL("ALTER TABLE {} REPLICA IDENTITY {}").format(
                            sql.Identifier(schema, table), clause
                        )
                    )
                    log.info("replica identity of %s.%s set to %s", schema, table, ident)

    def _filtered_tables(self) -> list[tuple[str, str]]:
        rows = self.conn.execute(
            "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind IN ('r','p') AND n.nspname NOT IN ('pg_catalog','information_schema') "
            "AND n.nspname NOT LIKE 'pg_toast%%' AND n.nspname NOT LIKE 'pg_temp%%' ORDER BY 1, 2"
        ).fetchall()
        return [(s, t) for s, t in rows if self.filters.table_included(s, t)]

    def _slot_state(self) -> dict | None:
        deadline = time.monotonic() + 15
        while True:
            row = self.conn.execute(
                "SELECT plugin, database, active, confirmed_flush_lsn::text, restart_lsn::text "
                "FROM pg_replication_slots WHERE slot_name = %s",
                (self.slot_name,),
            ).fetchone()
            # a previous run's connection may take a moment to be reaped after a crash
            if not row or not row[2] or time.monotonic() > deadline:
                break
            time.sleep(0.25)
        if not row:
            return None
        plugin, database, active, confirmed, restart = row
        if plugin != "pgoutput":
            raise RuntimeError(f"replication slot {self.slot_name!r} uses plugin {plugin!r}, not pgoutput")
        if database != self.dbname:
            raise RuntimeError(f"replication slot {self.slot_name!r} belongs to database {database!r}")
        if active:
            raise ReplicationError(f"replication slot {self.slot_name!r} is in use by another connection")
        return {
            "confirmed": po.lsn_to_int(confirmed) if confirmed else None,
            "restart": po.lsn_to_int(restart) if restart else None,
        }

    def _drop_slot(self) -> None:
        # the server's walsender may hold the slot for a moment after our replication connection closed
        deadline = time.monotonic() + 10
        while True:
            try:
                self.conn.execute(
                    "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                    "WHERE slot_name = %s",
                    (self.slot_name,),
                )
                log.info("dropped replication slot %s (slot.drop.on.stop)", self.slot_name)
                return
            except psycopg.errors.ObjectInUse:
                if time.monotonic() > deadline:
                    log.warning("could not drop slot %s: still in use", self.slot_name)
                    return
                time.sleep(0.2)
            except psycopg.Error as e:
                log.warning("could not drop slot %s: %s", self.slot_name, e)
                return
