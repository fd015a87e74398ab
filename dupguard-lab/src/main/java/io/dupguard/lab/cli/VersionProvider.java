package io.dupguard.lab.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/** {@code dupguard 1.0.0 (Java 17.0.15)}, from the version the build wrote into the jar. */
final class VersionProvider implements CommandLine.IVersionProvider {

    static String version() {
        Properties p = new Properties();
        try (InputStream in = VersionProvider.class.getResourceAsStream("/io/dupguard/lab/version.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        return p.getProperty("version", "unknown");
    }

    @Override
    public String[] getVersion() {
        return new String[] {"dupguard " + version() + " (Java " + System.getProperty("java.version") + ")"};
    }
}
