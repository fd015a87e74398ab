package io.dupguard.spring.annotation;

import java.time.Duration;
import org.springframework.boot.convert.DurationStyle;

/** Duration attributes of the annotations ("5s", "PT5S"), with errors naming method and attribute. */
final class Durations {
    private Durations() {}

    static Duration parse(String where, String attribute, String text) {
        try {
            return DurationStyle.detectAndParse(text.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    where + ": " + attribute + " = \"" + text
                            + "\" is not a duration (use e.g. \"5s\", \"500ms\", \"PT5S\")",
                    e);
        }
    }

    static void check(String where, String attribute, Runnable apply) {
        try {
            apply.run();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + ": " + attribute + ": " + e.getMessage(), e);
        }
    }
}
