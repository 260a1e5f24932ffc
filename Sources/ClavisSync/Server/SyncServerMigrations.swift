/// The scripts of `SyncServerSchema`'s migrations, one per version. A published one never changes: a change is a new
/// migration.
enum SyncServerMigrations {
    /// Version 1: the account role, the tables, their row-level security and the change notification.
    static let accountsRecordsAndCircles = """
        DO $roles$ BEGIN
            IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'clavis_sync_account') THEN
                CREATE ROLE clavis_sync_account NOLOGIN;
            END IF;
        END $roles$;

        -- Every change to an account's rows takes the next number: a device asks for what changed after the last
        -- number it saw.
        CREATE SEQUENCE clavis_sync.changes AS bigint;

        -- One row per synced item: a keyed digest names it, the ciphertext holds its attributes, secret and group.
        CREATE TABLE clavis_sync.records (
            account name NOT NULL DEFAULT current_user,
            record_id bytea NOT NULL CHECK (length(record_id) = 32),
            version bigint NOT NULL CHECK (version > 0),
            writer bytea NOT NULL CHECK (length(writer) BETWEEN 1 AND 64),
            ciphertext bytea NOT NULL,
            signature bytea NOT NULL,
            change bigint NOT NULL DEFAULT nextval('clavis_sync.changes'),
            PRIMARY KEY (account, record_id)
        );
        CREATE INDEX records_by_change ON clavis_sync.records (account, change);

        -- The circle of trusted devices: each version a signed list of the members' public keys.
        CREATE TABLE clavis_sync.circles (
            account name NOT NULL DEFAULT current_user,
            version bigint NOT NULL CHECK (version > 0),
            circle bytea NOT NULL,
            signature bytea NOT NULL,
            change bigint NOT NULL DEFAULT nextval('clavis_sync.changes'),
            PRIMARY KEY (account, version)
        );

        -- The sync keys of each generation, wrapped to each member device and to the recovery key.
        CREATE TABLE clavis_sync.wrapped_keys (
            account name NOT NULL DEFAULT current_user,
            generation bigint NOT NULL CHECK (generation > 0),
            recipient bytea NOT NULL CHECK (length(recipient) BETWEEN 1 AND 64),
            wrapped bytea NOT NULL,
            change bigint NOT NULL DEFAULT nextval('clavis_sync.changes'),
            PRIMARY KEY (account, generation, recipient)
        );

        -- A device asking to join, until a member approves or refuses it.
        CREATE TABLE clavis_sync.join_requests (
            account name NOT NULL DEFAULT current_user,
            device bytea NOT NULL CHECK (length(device) BETWEEN 1 AND 64),
            request bytea NOT NULL,
            created timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (account, device)
        );

        -- Each device's signed high-water mark: the newest change it has seen, so that a replayed older state is
        -- caught by the others.
        CREATE TABLE clavis_sync.high_water_marks (
            account name NOT NULL DEFAULT current_user,
            device bytea NOT NULL CHECK (length(device) BETWEEN 1 AND 64),
            mark bytea NOT NULL,
            signature bytea NOT NULL,
            PRIMARY KEY (account, device)
        );

        DO $policies$
        DECLARE
            name text;
        BEGIN
            FOREACH name IN ARRAY ARRAY['records', 'circles', 'wrapped_keys', 'join_requests', 'high_water_marks']
            LOOP
                EXECUTE format('ALTER TABLE clavis_sync.%I ENABLE ROW LEVEL SECURITY', name);
                EXECUTE format('ALTER TABLE clavis_sync.%I FORCE ROW LEVEL SECURITY', name);
                EXECUTE format(
                    'CREATE POLICY own_account ON clavis_sync.%I USING (account = current_user) '
                    'WITH CHECK (account = current_user)', name);
                EXECUTE format(
                    'GRANT SELECT, INSERT, UPDATE, DELETE ON clavis_sync.%I TO clavis_sync_account', name);
            END LOOP;
        END $policies$;
        GRANT USAGE ON SCHEMA clavis_sync TO clavis_sync_account;
        GRANT USAGE ON SEQUENCE clavis_sync.changes TO clavis_sync_account;

        -- A change to an account's records or circle wakes its devices: channel "clavis_sync.<account>", payload the
        -- change number. Channels are not private in PostgreSQL: another account could learn when this one changes,
        -- never what.
        CREATE FUNCTION clavis_sync.notify_change() RETURNS trigger LANGUAGE plpgsql AS $notify$
        BEGIN
            PERFORM pg_notify('clavis_sync.' || NEW.account, NEW.change::text);
            RETURN NEW;
        END
        $notify$;
        CREATE TRIGGER records_changed AFTER INSERT OR UPDATE ON clavis_sync.records
            FOR EACH ROW EXECUTE FUNCTION clavis_sync.notify_change();
        CREATE TRIGGER circles_changed AFTER INSERT OR UPDATE ON clavis_sync.circles
            FOR EACH ROW EXECUTE FUNCTION clavis_sync.notify_change();
        CREATE TRIGGER wrapped_keys_changed AFTER INSERT OR UPDATE ON clavis_sync.wrapped_keys
            FOR EACH ROW EXECUTE FUNCTION clavis_sync.notify_change();
        """
}
