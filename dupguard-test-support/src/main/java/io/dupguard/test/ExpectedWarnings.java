package io.dupguard.test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.charset.Charset;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Marks a test (or every test of a class) that provokes warnings on purpose — a pool closed under a
 * holder, a server stopped mid-test — so that a green run stays short: what the test writes to
 * {@code System.err} (slf4j-simple's log lines and the stack traces they carry, from any thread)
 * is held back while it runs, dropped if it passes, and printed after it if it fails, so a red run
 * shows everything. Only for warnings the test expects; anything else stays on the console.
 *
 * <p>Tests of one JVM must run one at a time (JUnit's default): the capture swaps {@code
 * System.err}. Output of {@code @BeforeAll} / {@code @AfterAll} methods is not held back.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ExpectedWarnings.HoldBack.class)
public @interface ExpectedWarnings {

    /** Which warnings, and why they are expected: documentation for the reader. */
    String value();

    /** The extension behind the annotation. */
    final class HoldBack implements BeforeEachCallback, AfterEachCallback {
        private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(HoldBack.class);

        /** The real stream and what was held back from it during one test. */
        private record Capture(PrintStream real, ByteArrayOutputStream held) {}

        @Override
        public void beforeEach(ExtensionContext context) {
            PrintStream real = System.err;
            ByteArrayOutputStream held = new ByteArrayOutputStream();
            context.getStore(NAMESPACE).put(Capture.class, new Capture(real, held));
            System.setErr(new PrintStream(held, true, Charset.defaultCharset()));
        }

        @Override
        public void afterEach(ExtensionContext context) {
            Capture capture = context.getStore(NAMESPACE).remove(Capture.class, Capture.class);
            if (capture == null) {
                return;
            }
            System.err.flush();
            System.setErr(capture.real());
            if (context.getExecutionException().isPresent()) {
                capture.real()
                        .println("---- " + context.getDisplayName() + " failed; its expected warnings follow ----");
                capture.real().print(capture.held().toString(Charset.defaultCharset()));
                capture.real().println("---- end of the warnings of " + context.getDisplayName() + " ----");
                capture.real().flush();
            }
        }
    }
}
