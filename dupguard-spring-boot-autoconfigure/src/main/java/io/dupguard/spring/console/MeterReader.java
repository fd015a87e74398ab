package io.dupguard.spring.console;

import io.dupguard.console.Console;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/** Shows dupguard's meters on the console's overview when Micrometer is on the class path. */
final class MeterReader {
    private MeterReader() {}

    static void attach(Console.Builder b, ListableBeanFactory beans) {
        if (ClassUtils.isPresent("io.micrometer.core.instrument.MeterRegistry", MeterReader.class.getClassLoader())) {
            MicrometerMeters.attach(b, beans);
        }
    }
}
