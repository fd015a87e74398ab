package io.dupguard.spring.console;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code dupguard.console.*}: the operator console (docs/console.md). Off by default; when on, it
 * needs Spring Security (spring-boot-starter-security) and a DataSource holding the stores' tables.
 */
@ConfigurationProperties("dupguard.console")
public class ConsoleProperties {
    /** Serve the operator console. */
    private boolean enabled = false;
    /** Path of the console's pages; its JSON API is under {path}/api. */
    private String path = "/dupguard";
    /** Authority that may read the console. */
    private String viewerAuthority = "ROLE_DUPGUARD_VIEWER";
    /** Authority that may also act (unblock, cancel, run now, force-expire, release); implies viewer. */
    private String operatorAuthority = "ROLE_DUPGUARD_OPERATOR";
    /** Table of the audit (created when missing unless dupguard.jdbc.create-schema is false). */
    private String auditTable = "dupguard_console_audit";

    /** The defaults of {@code dupguard.console.*}. */
    public ConsoleProperties() {}

    /**
     * Whether the console is served.
     *
     * @return true if enabled
     */
    public boolean isEnabled() {
        return enabled;
    }

    /**
     * Serve the console or not.
     *
     * @param enabled true to serve it
     */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /**
     * The console's path.
     *
     * @return e.g. {@code /dupguard}
     */
    public String getPath() {
        return path;
    }

    /**
     * Sets the console's path.
     *
     * @param path starts with {@code /}, not {@code /} alone
     */
    public void setPath(String path) {
        this.path = path;
    }

    /**
     * The viewer authority.
     *
     * @return the authority's name
     */
    public String getViewerAuthority() {
        return viewerAuthority;
    }

    /**
     * Sets the viewer authority.
     *
     * @param viewerAuthority the authority's name
     */
    public void setViewerAuthority(String viewerAuthority) {
        this.viewerAuthority = viewerAuthority;
    }

    /**
     * The operator authority.
     *
     * @return the authority's name
     */
    public String getOperatorAuthority() {
        return operatorAuthority;
    }

    /**
     * Sets the operator authority.
     *
     * @param operatorAuthority the authority's name
     */
    public void setOperatorAuthority(String operatorAuthority) {
        this.operatorAuthority = operatorAuthority;
    }

    /**
     * The audit table.
     *
     * @return its name
     */
    public String getAuditTable() {
        return auditTable;
    }

    /**
     * Sets the audit table.
     *
     * @param auditTable a plain SQL identifier
     */
    public void setAuditTable(String auditTable) {
        this.auditTable = auditTable;
    }
}
