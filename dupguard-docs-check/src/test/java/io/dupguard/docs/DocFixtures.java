package io.dupguard.docs;

import io.dupguard.jdbc.Fence;

/** What several snippets use without showing it (a page shows it once, in LocksJdbcSnippets#fence). */
final class DocFixtures {

    static final Fence ACCOUNTS = Fence.on("accounts", "id", "fence");

    private DocFixtures() {}
}
