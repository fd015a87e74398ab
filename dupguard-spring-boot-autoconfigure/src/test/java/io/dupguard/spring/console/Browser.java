package io.dupguard.spring.console;

import io.dupguard.test.HeadlessChromium;
import java.nio.file.Files;
import java.nio.file.Path;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;

/** Headless Chromium on the console: login, pages, and screenshots into docs/console. */
final class Browser implements AutoCloseable {
    final ChromeDriver driver;
    private final String base;

    Browser(String base, Path profiles) throws Exception {
        this.base = base;
        this.driver = HeadlessChromium.start(profiles, "--window-size=1280,900");
    }

    void login(String user, String password) {
        driver.manage().deleteAllCookies();
        driver.get(base + "/login");
        driver.findElement(By.id("username")).sendKeys(user);
        driver.findElement(By.id("password")).sendKeys(password);
        driver.findElement(By.cssSelector("button[type=submit]")).click();
        // The click may return before the form's POST is answered; a page opened now would abort it
        // and land on the login page again (seen on a loaded machine). Logged in = off the login page.
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(15))
                .until(() -> !driver.getCurrentUrl().contains("/login"));
    }

    void open(String path) {
        driver.get(base + path);
    }

    /** The text of the first element matching {@code css}, once the page shows one (a form post may still be loading). */
    String text(String css) {
        try {
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(15))
                    .until(() -> !driver.findElements(By.cssSelector(css)).isEmpty());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            String page = driver.findElement(By.tagName("body")).getText();
            throw new AssertionError(
                    "no " + css + " within 15 s on " + driver.getCurrentUrl() + ", which shows: "
                            + page.substring(0, Math.min(page.length(), 500)),
                    e);
        }
        return driver.findElement(By.cssSelector(css)).getText();
    }

    /** Writes the page as docs/console/{name}.png (the repository's docs, from the module directory). */
    void screenshot(String name) throws Exception {
        Path dir = Path.of(System.getProperty("user.dir"))
                .resolve("../docs/console")
                .normalize();
        Files.createDirectories(dir);
        Files.write(dir.resolve(name + ".png"), driver.getScreenshotAs(OutputType.BYTES));
    }

    @Override
    public void close() {
        driver.quit();
    }
}
