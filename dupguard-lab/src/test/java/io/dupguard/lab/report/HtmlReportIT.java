package io.dupguard.lab.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.dupguard.lab.LabCli;
import io.dupguard.lab.SecondLane;
import io.dupguard.test.HeadlessChromium;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.openqa.selenium.By;
import org.openqa.selenium.Rectangle;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * Opens the {@code --html} report of a real (short) storm in headless Chromium and checks what a
 * reader sees: tables with rows, and charts whose bars have actually been laid out. Chromium and
 * chromedriver are the system's (scripts/services installs them); nothing is downloaded.
 */
@Execution(ExecutionMode.CONCURRENT) // in the second lane: see SecondLane
@ResourceLock(SecondLane.LOCK)
class HtmlReportIT {
    private static final String CHROMIUM = "/usr/bin/chromium";
    private static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    @TempDir
    Path dir;

    @Test
    void reportShowsTheTablesAndRenderedCharts() throws Exception {
        Path html = dir.resolve("storm.html");
        LabCli.Result r = LabCli.run(
                "storm",
                "--workload",
                "account-binding,payment",
                "--duration",
                "300ms",
                "--clients",
                "8",
                "--html",
                html.toString());
        assertThat(r.status()).as("stderr: %s", r.err()).isZero();
        String source = Files.readString(html);
        assertThat(source).as("self-contained").doesNotContain("<script", "<link", " src=", " href=");

        ChromeDriver browser = open();
        try {
            browser.get(html.toUri().toString());

            List<WebElement> tables = browser.findElements(By.cssSelector("table.results"));
            assertThat(tables).hasSize(2);
            assertThat(tables.get(0).findElements(By.cssSelector("tbody tr"))).hasSize(5);
            assertThat(tables.get(1).findElements(By.cssSelector("tbody tr"))).hasSize(5);
            assertThat(tables.get(0).findElement(By.cssSelector("tbody tr td")).getText())
                    .isEqualTo("select-then-insert");

            List<WebElement> charts = browser.findElements(By.cssSelector("svg.chart"));
            assertThat(charts).hasSize(4);
            assertThat(browser.findElements(By.cssSelector("svg.duplicate-effects")))
                    .hasSize(2);
            assertThat(browser.findElements(By.cssSelector("svg.latency"))).hasSize(2);
            for (WebElement chart : charts) {
                assertThat(hasArea(chart.getRect())).as("chart laid out").isTrue();
                List<WebElement> bars = chart.findElements(By.cssSelector("rect.bar"));
                assertThat(bars).as("bars in %s", chart.getAttribute("class")).isNotEmpty();
                assertThat(bars.stream().filter(b -> hasArea(b.getRect())).count())
                        .as("bars with a non-zero size")
                        .isGreaterThanOrEqualTo(5);
                assertThat(chart.findElements(By.tagName("text"))).isNotEmpty();
            }
        } finally {
            browser.quit();
        }
    }

    @Test
    void lockBackendsChartTheirStaleWritesWithBothSeriesLaidOut() throws Exception {
        Path html = dir.resolve("locks.html");
        LabCli.Result r = LabCli.run(
                "storm",
                "--workload",
                "lock-backends",
                "--strategy",
                "memory-unfenced,memory-fenced",
                "--duration",
                "300ms",
                "--clients",
                "4",
                "--html",
                html.toString());
        assertThat(r.status()).as("stderr: %s", r.err()).isZero();

        ChromeDriver browser = open();
        try {
            browser.get(html.toUri().toString());
            assertThat(browser.findElements(By.cssSelector("svg.duplicate-effects")))
                    .isEmpty();
            WebElement chart = browser.findElement(By.cssSelector("svg.stale-writes"));
            assertThat(hasArea(chart.getRect())).as("chart laid out").isTrue();
            List<WebElement> bars = chart.findElements(By.cssSelector("rect.bar"));
            assertThat(bars).as("accepted and refused, per strategy").hasSize(4);
            assertThat(bars).allSatisfy(b -> assertThat(hasArea(b.getRect())).isTrue());
            // The unfenced run's accepted stale writes and the fenced run's refused ones are real bars,
            // wider than the stub that marks a zero.
            assertThat(bars.get(0).getRect().getWidth()).isGreaterThan(3);
            assertThat(bars.get(3).getRect().getWidth()).isGreaterThan(3);
            assertThat(chart.getText()).contains("stale writes accepted", "stale writes refused");
        } finally {
            browser.quit();
        }
    }

    private static boolean hasArea(Rectangle rect) {
        return rect.getWidth() > 0 && rect.getHeight() > 0;
    }

    private ChromeDriver open() throws Exception {
        return HeadlessChromium.start(dir);
    }
}
