#!/usr/bin/env bash
# Runs the suites written against Apple's API a second time, with every in-process keychain call going through a
# real clavisd (user mode, started by the tests, this test executable registered with the test entitlements).
# Suites that make keychains of their own (a passcode per test, a fresh folder) or test the embedded files are not
# among them: they run once, embedded, in `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."
suites=(
    AddAndCopyTests AccessGroupTests BlobAttributeTests CompatibilityTests PersistentReferenceTests
    ReturnTypeTests ReturnCombinationTests SynchronizableTests UpdateAndDeleteTests ValidationTests
    LocalAuthenticationTests TypeShapeTests StatusCodeTests AppleNamesTests ServiceLocationTests
)
filter=$(IFS='|'; echo "SecurityTests\\.(${suites[*]})/")
CLAVIS_TEST_THROUGH_DAEMON=1 swift test --skip-build --filter "$filter"
