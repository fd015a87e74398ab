package io.dupguard.test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium through its chromedriver, for browser tests (Selenium on the test's
 * class path). Both binaries are given, so Selenium Manager has nothing to look up or download;
 * scripts/services installs them.
 */
public final class HeadlessChromium {
    /** The browser. */
    public static final String CHROMIUM = "/usr/bin/chromium";
    /** Its driver. */
    public static final String CHROMEDRIVER = "/usr/bin/chromedriver";

    /**
     * Selenium warns (java.util.logging) on every start that it has no DevTools support for this
     * Chromium version; these tests use none. Held here: java.util.logging keeps loggers weakly.
     */
    private static final List<Logger> NO_CDP_WARNINGS =
            severeOnly("org.openqa.selenium.devtools.CdpVersionFinder", "org.openqa.selenium.chromium.ChromiumDriver");

    private HeadlessChromium() {}

    /**
     * Starts a browser with a fresh profile under {@code profiles}.
     *
     * @param profiles a directory for the profile (a test's temporary directory)
     * @param arguments more Chromium arguments, e.g. {@code --window-size=1280,900}
     * @return the driver; quit it when done
     * @throws IOException if the profile directory cannot be created
     */
    public static ChromeDriver start(Path profiles, String... arguments) throws IOException {
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER);
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        List<String> args = new ArrayList<>(List.of(
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--user-data-dir=" + Files.createTempDirectory(profiles, "chromium-profile")));
        args.addAll(List.of(arguments));
        options.addArguments(args);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER))
                .usingAnyFreePort()
                .build();
        return new ChromeDriver(service, options);
    }

    private static List<Logger> severeOnly(String... names) {
        List<Logger> loggers = new ArrayList<>();
        for (String name : names) {
            Logger logger = Logger.getLogger(name);
            logger.setLevel(Level.SEVERE);
            loggers.add(logger);
        }
        return loggers;
    }
}
