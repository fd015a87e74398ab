package io.dupguard.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

/**
 * {@link ExpectedWarnings}: held back while an annotated test runs, dropped when it passes, printed
 * when it fails; around {@code @BeforeAll}/{@code @AfterAll} of an annotated class too.
 */
class ExpectedWarningsTest {

    @Test
    void aPassingTestsWarningsAreDroppedAndAFailingTestsArePrinted() {
        String console = run(Examples.class);

        assertThat(console)
                .contains("not annotated: stays on the console")
                .doesNotContain("expected, and the test passed")
                .contains("---- failing() failed; its expected warnings follow ----")
                .contains("expected, but the test failed")
                .contains("---- end of the warnings of failing() ----");
    }

    @Test
    void onAClassItAlsoHoldsBackItsSetUpAndTearDownAndItsNestedClasses() {
        String console = run(AnnotatedClass.class);

        assertThat(console).isEmpty();
    }

    @Test
    void systemErrIsRestoredAfterwards() {
        PrintStream before = System.err;
        run(Examples.class);
        assertThat(System.err).isSameAs(before);
    }

    @Test
    void testsRunningAtTheSameTimeEachKeepTheirsAndTheConsoleComesBack() {
        PrintStream before = System.err;
        String console = run(Concurrent.class, true);

        assertThat(console)
                .contains("---- failing() failed; its expected warnings follow ----")
                .contains("concurrent, but the test failed")
                .contains("---- end of the warnings of failing() ----")
                .contains("after both: stays on the console");
        assertThat(System.err).isSameAs(before);
    }

    /** Runs {@code testClass} with JUnit and returns what reached the console (System.err). */
    private static String run(Class<?> testClass) {
        return run(testClass, false);
    }

    private static String run(Class<?> testClass, boolean concurrent) {
        PrintStream real = System.err;
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        Events tests;
        try {
            System.setErr(new PrintStream(console, true, StandardCharsets.UTF_8));
            tests = EngineTestKit.engine("junit-jupiter")
                    .configurationParameter("junit.jupiter.execution.parallel.enabled", Boolean.toString(concurrent))
                    .configurationParameter("junit.jupiter.execution.parallel.mode.default", "concurrent")
                    .configurationParameter("junit.jupiter.execution.parallel.config.strategy", "fixed")
                    .configurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism", "2")
                    .selectors(selectClass(testClass))
                    .execute()
                    .testEvents();
        } finally {
            System.setErr(real);
        }
        assertThat(tests.started().count())
                .as("tests of %s that ran", testClass.getSimpleName())
                .isPositive();
        return console.toString(StandardCharsets.UTF_8);
    }

    // Run by the tests above through EngineTestKit, not by the build (nested in a non-test class).
    static class Examples {
        @Test
        @ExpectedWarnings("writes one on purpose")
        void passing() {
            System.err.println("expected, and the test passed");
        }

        @Test
        @ExpectedWarnings("writes one on purpose")
        void failing() {
            System.err.println("expected, but the test failed");
            throw new AssertionError("failed on purpose");
        }

        @Test
        void notAnnotated() {
            System.err.println("not annotated: stays on the console");
        }
    }

    /** Two annotated tests that hold their captures open at the same time, one of them failing. */
    static class Concurrent {
        static final CyclicBarrier BOTH = new CyclicBarrier(2);

        @Test
        @ExpectedWarnings("writes one on purpose")
        void passing() throws Exception {
            writeWhileBothRun("concurrent, and the test passed");
        }

        @Test
        @ExpectedWarnings("writes one on purpose")
        void failing() throws Exception {
            writeWhileBothRun("concurrent, but the test failed");
            throw new AssertionError("failed on purpose");
        }

        /** Writes {@code line} after both tests have started and before either ends. */
        private static void writeWhileBothRun(String line) throws Exception {
            BOTH.await(10, TimeUnit.SECONDS);
            System.err.println(line);
            BOTH.await(10, TimeUnit.SECONDS);
        }

        @AfterAll
        static void afterBoth() {
            System.err.println("after both: stays on the console");
        }
    }

    @ExpectedWarnings("every part writes one on purpose")
    static class AnnotatedClass {
        @BeforeAll
        static void setUp() {
            System.err.println("set-up warning");
        }

        @AfterAll
        static void tearDown() {
            System.err.println("tear-down warning");
        }

        @Test
        void passing() {
            System.err.println("test warning");
        }

        @Nested
        class Inner {
            @Test
            void passing() {
                System.err.println("nested test warning");
            }
        }
    }
}
