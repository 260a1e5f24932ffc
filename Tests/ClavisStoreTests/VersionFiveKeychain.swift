import ClavisCore
import ClavisStore

/// A keychain as `clavis` wrote it at schema version 5 (`sqlite3 keychain.db .dump`, and its device key), every row
/// sealed in format 1 (a wrapped item key, part nonces) with attributes in `StoredAttributes` version 2 and 8-byte
/// lookup digests, all in group "clavis": alice (label "Mail") and bob (updated, so his `mdat` differs from his
/// `cdat`) under "mail.example"; dave (`ck`, synchronizable) and erin (`dku`, label "Erin VPN") under "vpn"; the
/// tombstone of a deleted synchronizable "gone"; frank under "login" with Secret Service attributes user=frank and
/// xdg:schema=org.example; and carol's internet password for example.com.
enum VersionFiveKeychain {
    static let secrets = [
        "alice": "secret-alice", "bob": "secret-bob-2", "carol": "secret-carol", "dave": "secret-dave",
        "erin": "secret-erin", "frank": "secret-frank",
    ]

    static func write(to home: KeychainHome) throws {
        try KeychainFixture.write(dump: dump, deviceKey: deviceKey, to: home)
    }

    static let deviceKey = "b823c849b93d57aadf0dea63d6cb0a50e5bdbaa6cafc2d4c7f20a0096e9bb681"

    static let dump = """
        PRAGMA foreign_keys=OFF;
        BEGIN TRANSACTION;
        CREATE TABLE schema_version (version INTEGER NOT NULL);
        INSERT INTO schema_version VALUES(1);
        INSERT INTO schema_version VALUES(2);
        INSERT INTO schema_version VALUES(3);
        INSERT INTO schema_version VALUES(4);
        INSERT INTO schema_version VALUES(5);
        CREATE TABLE settings (name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;
        INSERT INTO settings VALUES('keybag_salt',X'd36cc99ce6764a1d98986c763bc42f8befcca4090fa88928af9084bf874be25a');
        CREATE TABLE keybag (class TEXT PRIMARY KEY, wrapped_key BLOB NOT NULL) WITHOUT ROWID;
        INSERT INTO keybag VALUES('ak',X'074bcdd58b521b56f34e71233c782d8322e356c2e6b430610ec732b7f96a38fb687586747b3d2d55');
        INSERT INTO keybag VALUES('akpu',X'aa249688b4479bd720cffa7a74b79a460d5006b0eaa3042a4873572557bcf4e41835ab8a916c2781');
        INSERT INTO keybag VALUES('aku',X'b1275c3365cbb8c1c051f40d639427d2ed5e4b69fa4451111f75b3f51c26b39ed8386093715c5b03');
        INSERT INTO keybag VALUES('ck',X'bea2f2eee66171d935b3b95fb6734e1a124d635483e026b46fc411e7f23565cfb06492049a3ac422');
        INSERT INTO keybag VALUES('cku',X'5ca79f780343959ff2e8b894c499d91f9dac8a69236d6b9b655307b2899b6b36f25342b621be3b06');
        INSERT INTO keybag VALUES('dk',X'25387d3cccc2993f41fa6e9e3a9a0d9a17199735c07f3c772f9993f10e84d1abaa052c8e169f0155');
        INSERT INTO keybag VALUES('dku',X'2a8e5bce1ce91cd2683c56714dba5c676b874c5ab658ab7f84ac46e5248647d3194b2a50daae3dce');
        CREATE TABLE IF NOT EXISTS "items" (
            id INTEGER PRIMARY KEY,
            class TEXT NOT NULL,
            reference BLOB NOT NULL,
            protection TEXT NOT NULL,
            sync INTEGER NOT NULL,
            tombstone INTEGER NOT NULL DEFAULT 0,
            primary_digest BLOB NOT NULL,
            wrapped_key BLOB NOT NULL,
            attributes BLOB NOT NULL,
            secret BLOB NOT NULL,
            sealing INTEGER NOT NULL
        );
        INSERT INTO items VALUES(1,'genp',X'a0e12f68859ab742fef208d0d75fa943','ak',0,0,X'733a56f4237b5cf50486cf8d06d208d1',X'd043518ab5f521f3f67417b540ea529cec9e2a31ee5ce27ddedda7e060b63018fa545612bca1deca',X'563df6cc7ee74be21cd0657a33bc1725bb14f09661f806b294003f4928a43d574ab479562fa44ecc1c5ae4027887785829bb17b246ee60ebb704213e8eb500fb58c75d995f5157bcffebf449dd250e46aa9aa302',X'9a0509001abdedf19ae137791bbf3ac49d928d4d95a86f1198254141',1);
        INSERT INTO items VALUES(2,'genp',X'ca334e67a803551477a5fe5855724469','ak',0,0,X'71eb490759431f1bff501e0779924b9d',X'126cf6642e36f5bf199fa0f6ad90481f070516653ccf84657b2714582fc523be9767c1ab6eca7150',X'ae47ed578cd5a9357db71ccc91cee7339516d27c467cf25183140da59922ab3fe69da7b6c540a6b6a1bd990d4dc134390c1ac48655c4f39aa2aa274d03f76d311ed1b24207a99250789d17',X'15f1eef4ca175333dcdf640e89e037d3933304df436cf757b16ced77',1);
        INSERT INTO items VALUES(3,'genp',X'0c3a5421299bb993e9e21fb0c1e8eed2','ck',1,0,X'ba4622c6518d531a4f4047e7faf41a09',X'f93dc5cc83101001dcdc5918c2c53960e36ba76b9bf4fa8b206c84679590f5f3a764c4b0c2b3ee71',X'9bda000d0eeb52348ad04a47fd1950a9800567a59a802d48f75ee930a607a18eae5a50efa8eb099467b2324b80b73de1805c85bc58233e02faed5889432bd652e53b65',X'42502d882509ed72d31cc65671de5586117f466a9276a960666456',1);
        INSERT INTO items VALUES(4,'genp',X'2f5dc516e47e77941d5775be599e0882','dku',0,0,X'3818d217784eaea8638d261ee7df3c0f',X'ec089c6fde9bbc4672e81cd0268bc92a678d64dfa2dcb24f801206bcd836db00f828272e5bae09b6',X'87d51a569bca9aee39f78f8d78f8eef0512ca3d860c6ca234514fcf4d4fc17d8fb6762af0a1d281717b3b218ba0ae8cf05ff4ea783e495ca895d1940d95abb59b202844d0e35ecb752e1da526f06ce',X'd3a6cc2511f2e392aad518c302d3258ef9e8151dde9b9a52d503bb',1);
        INSERT INTO items VALUES(5,'genp',X'5e00b40ee83393354dcc84d4a4b1719d','ak',1,1,X'dff17f53b2d956acf3c7bd57c13c20bb',X'f475bc2f46efcc474497c082d8f428872699bb574f623a92349c96ab1c0848f8d0a189db50b08b52',X'28c86c09e53f1e4bbab4fd1a073fee15e3d6d9920d3bd9dbb17c954e08667470d4b581c757c6ef53b3a51e58da7bc310917ccbc0bedcfccb6fae1178c6746aefc53bae',X'1ed588d1cec102e1edd1345ae9549bc3',1);
        INSERT INTO items VALUES(6,'genp',X'33fc9eda4ae65639af7250d8f5ff1ad1','ak',0,0,X'46cde7886ec337f13b504504e4662824',X'f16984cdb53e9d5144ee8e3920630afc3007d56b496bc3e18402777d885990f29cea98885f1a9de1',X'cc47b7ca85f1b4b48a3a7c20c865d7dc7415ad6658ebb934dcf959dc8a68899b9e335548040d9b43dc80848f74ce4f0e541e630e6ca61de8979d949776bab872cf306e026b7d55680146c49a45812ba2a26cbfaa19f3db902727925b72be415beedf80867c72479e6bcfec9a14ee062745a1a0bea35e708d8051103472aa4540ed',X'936a5783747b62a16784c52e62d6f14b554eb43a3b03019368433885',1);
        INSERT INTO items VALUES(7,'inet',X'bbace618ce6dbd06c3be575f774858f8','ak',0,0,X'ba5d92028b866493b235ae0df0c626d1',X'a7d67db335a4506ec980db77c7e4a63b0e8f9a1eeffc43d7de916a9c155448266c0c2fbdecfdd6e6',X'72616b3b670991dd814d84c1a6693cacdd18621c207f7270b4be742122df1979e666a51469693a510c659d32685fb0678703e855dcad5369469d5da983f673a912c6aba5e2b13e034188f990',X'1744d09707c6715a0a35e531824a4ee6b68cb482ab2fdc8a81501aaf',1);
        CREATE TABLE items_access_group (digest BLOB NOT NULL, item INTEGER NOT NULL, PRIMARY KEY (digest, item)) WITHOUT ROWID;
        INSERT INTO items_access_group VALUES(X'7fb21b50da53525e',1);
        INSERT INTO items_access_group VALUES(X'7fb21b50da53525e',2);
        INSERT INTO items_access_group VALUES(X'7fb21b50da53525e',3);
        INSERT INTO items_access_group VALUES(X'7fb21b50da53525e',4);
        INSERT INTO items_access_group VALUES(X'7fb21b50da53525e',5);
        INSERT INTO items_access_group VALUES(X'7fb21b50da53525e',6);
        INSERT INTO items_access_group VALUES(X'7fb21b50da53525e',7);
        CREATE TABLE items_account (digest BLOB NOT NULL, item INTEGER NOT NULL, PRIMARY KEY (digest, item)) WITHOUT ROWID;
        INSERT INTO items_account VALUES(X'3b633259b18e4c84',2);
        INSERT INTO items_account VALUES(X'54199f6f6620a005',1);
        INSERT INTO items_account VALUES(X'6a3668e52b7b2cc7',7);
        INSERT INTO items_account VALUES(X'6fa31cd6617804fd',3);
        INSERT INTO items_account VALUES(X'794c881ab1b3f395',6);
        INSERT INTO items_account VALUES(X'7bbc995c98dffe9d',4);
        INSERT INTO items_account VALUES(X'f46165a92a16b5c1',5);
        CREATE TABLE items_service (digest BLOB NOT NULL, item INTEGER NOT NULL, PRIMARY KEY (digest, item)) WITHOUT ROWID;
        INSERT INTO items_service VALUES(X'0d9890c02beb2e34',1);
        INSERT INTO items_service VALUES(X'0d9890c02beb2e34',2);
        INSERT INTO items_service VALUES(X'6dff2188e26b4486',3);
        INSERT INTO items_service VALUES(X'6dff2188e26b4486',4);
        INSERT INTO items_service VALUES(X'6dff2188e26b4486',5);
        INSERT INTO items_service VALUES(X'b0a77f7f12fb56c4',6);
        CREATE TABLE items_server (digest BLOB NOT NULL, item INTEGER NOT NULL, PRIMARY KEY (digest, item)) WITHOUT ROWID;
        INSERT INTO items_server VALUES(X'1ec35792dbabea52',7);
        CREATE TABLE items_label (digest BLOB NOT NULL, item INTEGER NOT NULL, PRIMARY KEY (digest, item)) WITHOUT ROWID;
        INSERT INTO items_label VALUES(X'1d9488a23aab9c8c',1);
        INSERT INTO items_label VALUES(X'ec76f1a5f1e18010',4);
        CREATE TABLE items_application_label (digest BLOB NOT NULL, item INTEGER NOT NULL, PRIMARY KEY (digest, item)) WITHOUT ROWID;
        CREATE TABLE items_application_tag (digest BLOB NOT NULL, item INTEGER NOT NULL, PRIMARY KEY (digest, item)) WITHOUT ROWID;
        CREATE TABLE items_public_key_hash (digest BLOB NOT NULL, item INTEGER NOT NULL, PRIMARY KEY (digest, item)) WITHOUT ROWID;
        CREATE TABLE items_subject (digest BLOB NOT NULL, item INTEGER NOT NULL, PRIMARY KEY (digest, item)) WITHOUT ROWID;
        CREATE TABLE items_secret_service_attribute (digest BLOB NOT NULL, item INTEGER NOT NULL, PRIMARY KEY (digest, item)) WITHOUT ROWID;
        INSERT INTO items_secret_service_attribute VALUES(X'23e373014d2c3d29',6);
        INSERT INTO items_secret_service_attribute VALUES(X'a8ac339e62f85dae',6);
        CREATE UNIQUE INDEX items_primary_key ON items (primary_digest) WHERE tombstone = 0;
        CREATE INDEX items_reference ON items (substr(reference, 1, 8));
        COMMIT;
        """
}
