package io.dupguard.test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.charset.Charset;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Marks a test (or every test of a class) that provokes warnings on purpose — a pool closed under a
 * holder, a server stopped mid-test — so that a green run stays short: what is written to {@code
 * System.err} meanwhile (slf4j-simple's log lines and the stack traces they carry, from any thread)
 * is held back, dropped if the test passes, and printed after it if it fails, so a red run shows
 * everything. On a class, the same holds for its {@code @BeforeAll} / {@code @AfterAll} methods
 * (printed if they fail) and for its {@code @Nested} classes. Only for warnings the test expects;
 * anything else stays on the console.
 *
 * <p>Tests of one JVM must run one at a time (JUnit's default): the capture swaps {@code
 * System.err}.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(ExpectedWarnings.HoldBack.class)
public @interface ExpectedWarnings {

    /**
     * Which warnings, and why they are expected: documentation for the reader.
     *
     * @return the reason, one sentence
     */
    String value();

    /** The extension behind the annotation: one capture per class and per test, nested. */
    final class HoldBack implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
        private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(HoldBack.class);

        /** What was held back, the stream it replaced, and the console a failure is printed on. */
        private static final class Held extends PrintStream {
            final ByteArrayOutputStream buffer;
            final PrintStream replaced;
            final PrintStream console;

            private Held(ByteArrayOutputStream buffer, PrintStream replaced) {
                super(buffer, true, Charset.defaultCharset());
                this.buffer = buffer;
                this.replaced = replaced;
                this.console = replaced instanceof Held outer ? outer.console : replaced;
            }
        }

        @Override
        public void beforeAll(ExtensionContext context) {
            hold(context);
        }

        @Override
        public void afterAll(ExtensionContext context) {
            release(context);
        }

        @Override
        public void beforeEach(ExtensionContext context) {
            hold(context);
        }

        @Override
        public void afterEach(ExtensionContext context) {
            release(context);
        }

        private static void hold(ExtensionContext context) {
            Held held = new Held(new ByteArrayOutputStream(), System.err);
            context.getStore(NAMESPACE).put(Held.class, held);
            System.setErr(held);
        }

        private static void release(ExtensionContext context) {
            Held held = context.getStore(NAMESPACE).remove(Held.class, Held.class);
            if (held == null) {
                return;
            }
            held.flush();
            System.setErr(held.replaced);
            if (context.getExecutionException().isPresent()) {
                PrintStream console = held.console;
                console.println("---- " + context.getDisplayName() + " failed; its expected warnings follow ----");
                console.print(held.buffer.toString(Charset.defaultCharset()));
                console.println("---- end of the warnings of " + context.getDisplayName() + " ----");
                console.flush();
            }
        }
    }
}
