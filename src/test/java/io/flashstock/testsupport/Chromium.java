package io.flashstock.testsupport;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;

import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Headless Chromium for browser tests, through Debian's {@code chromium} and {@code chromium-driver} packages (found on
 * the PATH; {@code .ci/run} installs them when missing). Nothing is downloaded: without them the test fails and says
 * what to install, it never skips.
 */
public final class Chromium {

    private Chromium() {
    }

    /** A new headless browser with a window of the given size; quit it when done. */
    public static ChromeDriver start(int width, int height) {
        Path browser = onPath("chromium");
        Path driver = onPath("chromedriver");
        ChromeOptions options = new ChromeOptions().setBinary(browser.toFile())
                .addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                        "--hide-scrollbars", "--window-size=" + width + "," + height);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(driver.toFile())
                .usingAnyFreePort().withTimeout(Duration.ofSeconds(30)).build();
        return new ChromeDriver(service, options);
    }

    private static Path onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "") + File.pathSeparator + "/usr/bin";
        return Stream.of(path.split(File.pathSeparator)).map(dir -> Path.of(dir, program))
                .filter(Files::isExecutable).findFirst()
                .orElseGet(() -> fail(program + " is not installed: the browser tests need Debian's chromium and "
                        + "chromium-driver (apt-get install -y chromium chromium-driver; .ci/run installs them)"));
    }
}
