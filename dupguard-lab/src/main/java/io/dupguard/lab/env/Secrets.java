package io.dupguard.lab.env;

import java.util.regex.Pattern;

/** Keeps passwords in URLs out of messages and reports. */
final class Secrets {
    private static final Pattern SECRET = Pattern.compile("(?i)(password=)[^&;]*|(//[^/:@]*:)[^/@]+@");

    private Secrets() {}

    /** The URL with passwords replaced by {@code ***}. */
    static String mask(String url) {
        return SECRET.matcher(url).replaceAll(m -> m.group(1) != null ? "$1***" : "$2***@");
    }
}
