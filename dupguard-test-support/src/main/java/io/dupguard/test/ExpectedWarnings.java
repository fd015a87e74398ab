package io.dupguard.test;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.charset.Charset;
import java.util.ArrayList;
import java.util.List;
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
 * <p>Tests that run at the same time (JUnit's parallel mode) each keep what is written while they
 * run, their neighbours' warnings included: a background thread's line cannot be told apart.
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

    /**
     * The extension behind the annotation: one capture per class and per test, nested. While any
     * capture is open, {@code System.err} is one shared stream that writes each line to every open
     * capture with no open capture inside it (a test's, not its class's, while the test runs); tests
     * that run at the same time (JUnit's parallel mode) each keep everything written meanwhile, and
     * {@code System.err} is the console again once the last capture closes.
     */
    final class HoldBack implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
        private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(HoldBack.class);
        /** Guards {@link #open}, {@link #console} and every capture's buffer and child count. */
        private static final Object LOCK = new Object();
        /** The open captures, in the order they opened. */
        private static final List<Held> open = new ArrayList<>();
        /** {@code System.err} before the first open capture; null while none is open. */
        private static PrintStream console;

        /** One capture: what was held back for its test or class, and its enclosing capture. */
        private static final class Held {
            final ByteArrayOutputStream buffer = new ByteArrayOutputStream();
            final Held parent;
            int openChildren;

            Held(Held parent) {
                this.parent = parent;
            }
        }

        /** What {@code System.err} writes to while a capture is open. */
        private static final OutputStream ROUTER = new OutputStream() {
            @Override
            public void write(int b) {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                PrintStream out = null;
                synchronized (LOCK) { // held for in-memory writes only, never for the console's
                    boolean held = false;
                    for (Held h : open) {
                        if (h.openChildren == 0) {
                            h.buffer.write(b, off, len);
                            held = true;
                        }
                    }
                    if (!held) {
                        out = console;
                    }
                }
                if (out != null) {
                    out.write(b, off, len);
                }
            }
        };

        private static final PrintStream ROUTED = new PrintStream(ROUTER, true, Charset.defaultCharset());

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
            Held parent = context.getParent()
                    .map(p -> p.getStore(NAMESPACE).get(Held.class, Held.class))
                    .orElse(null);
            Held held = new Held(parent);
            context.getStore(NAMESPACE).put(Held.class, held);
            synchronized (LOCK) {
                if (open.isEmpty()) {
                    console = System.err;
                    System.setErr(ROUTED);
                }
                if (parent != null && open.contains(parent)) {
                    parent.openChildren++;
                }
                open.add(held);
            }
        }

        private static void release(ExtensionContext context) {
            Held held = context.getStore(NAMESPACE).remove(Held.class, Held.class);
            if (held == null) {
                return;
            }
            PrintStream out;
            byte[] kept;
            synchronized (LOCK) { // ROUTED writes through at once (no buffer): nothing to flush
                open.remove(held);
                if (held.parent != null && open.contains(held.parent)) {
                    held.parent.openChildren--;
                }
                out = console;
                if (open.isEmpty()) {
                    System.setErr(console);
                    console = null;
                }
                kept = held.buffer.toByteArray();
            }
            if (context.getExecutionException().isPresent() && out != null) {
                synchronized (out) { // the console's own lock: one block, not interleaved line by line
                    out.println("---- " + context.getDisplayName() + " failed; its expected warnings follow ----");
                    out.write(kept, 0, kept.length);
                    out.println("---- end of the warnings of " + context.getDisplayName() + " ----");
                    out.flush();
                }
            }
        }
    }
}
