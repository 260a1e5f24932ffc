#!/usr/bin/env bash
# Runs the suites written against Apple's API a second time, with every in-process keychain call going through a
# real clavisd (user mode, started by the tests, this test executable registered with the test entitlements).
# A keychain folder a test chooses (withKeychainHome) gets a daemon of its own. Suites that test the embedded files or
# run the clavis binary are not among them: they run once, embedded, in `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
suites=(
    AddAndCopyTests AccessGroupTests BlobAttributeTests CompatibilityTests PersistentReferenceTests
    ReturnTypeTests ReturnCombinationTests SynchronizableTests UpdateAndDeleteTests ValidationTests
    LocalAuthenticationTests TypeShapeTests StatusCodeTests AppleNamesTests ServiceLocationTests
    AccessControlSuites KeyItemTests CertificateItemTests IdentityItemTests PKCS12ImportTests EnclaveKeyTests
    ResultKeySpellingTests FileKeychainFallbackTests TransientEnclaveKeyTests
)
filter=$(IFS='|'; echo "SecurityTests\\.(${suites[*]})/")
CLAVIS_TEST_THROUGH_DAEMON=1 swift test --skip-build --filter "$filter"
