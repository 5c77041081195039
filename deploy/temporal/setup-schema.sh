#!/bin/sh
# Creates Temporal's two databases in the compose PostgreSQL and brings their schemas up to the
# version the pinned temporalio/server expects. Run by the temporal-schema service
# (temporalio/admin-tools) before the server starts; safe to run again.
set -eu
: "${POSTGRES_SEEDS:=postgres}" "${DB_PORT:=5432}" "${POSTGRES_USER:=vts}"
export SQL_PASSWORD="${POSTGRES_PWD}"
until nc -z "$POSTGRES_SEEDS" "$DB_PORT"; do sleep 1; done
for db in temporal temporal_visibility; do
  dir=temporal
  [ "$db" = temporal_visibility ] && dir=visibility
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --db "$db" create || true
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --db "$db" setup-schema -v 0.0 || true
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --db "$db" \
    update-schema -d "/etc/temporal/schema/postgresql/v12/$dir/versioned"
done
