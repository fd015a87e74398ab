package io.dupguard.jdbc.dedupe;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How fast {@code apply} deletes: rows or keys (duplicate groups) per second, or unlimited.
 *
 * @param perSecond units per second; {@code 0} means no limit
 * @param keys whether the unit is a key (a group) rather than a row
 */
public record Rate(double perSecond, boolean keys) {
    /** The default: 1000 rows per second. */
    public static final Rate DEFAULT = new Rate(1000, false);
    /** No limit. */
    public static final Rate UNLIMITED = new Rate(0, false);

    private static final Pattern FORM = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(rows|keys)?\\s*/\\s*(s|sec|min|m)");

    /**
     * @param perSecond units per second; {@code 0} means no limit
     * @param keys whether the unit is a key (a group) rather than a row
     * @throws IllegalArgumentException if {@code perSecond} is negative, NaN or infinite
     */
    public Rate {
        if (perSecond < 0 || Double.isNaN(perSecond) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("rate must be >= 0 per second (0 = no limit), was " + perSecond);
        }
    }

    /**
     * True when there is no limit.
     *
     * @return true if unlimited
     */
    public boolean unlimited() {
        return perSecond == 0;
    }

    /**
     * Parses {@code 500/s}, {@code 1000keys/min}, {@code 200rows/s} or {@code unlimited}.
     *
     * @param text the rate as given on the command line; not null
     * @return the rate
     * @throws IllegalArgumentException naming the expected forms
     */
    public static Rate parse(String text) {
        String t = text == null ? "" : text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("unlimited") || t.equals("none") || t.equals("0")) {
            return UNLIMITED;
        }
        Matcher m = FORM.matcher(t);
        if (!m.matches()) {
            throw new IllegalArgumentException(
                    "--rate: expected N/s, N/min, Nkeys/min, Nrows/s or unlimited, was '" + text + "'");
        }
        double n = Double.parseDouble(m.group(1));
        double perSecond = m.group(3).startsWith("m") ? n / 60.0 : n;
        if (perSecond == 0) {
            throw new IllegalArgumentException("--rate: must be above 0 (or 'unlimited'), was '" + text + "'");
        }
        return new Rate(perSecond, "keys".equals(m.group(2)));
    }

    @Override
    public String toString() {
        if (unlimited()) {
            return "unlimited";
        }
        String unit = keys ? "keys" : "rows";
        return perSecond >= 1 && perSecond == Math.rint(perSecond)
                ? (long) perSecond + " " + unit + "/s"
                : String.format(Locale.ROOT, "%.0f %s/min", perSecond * 60, unit);
    }
}
