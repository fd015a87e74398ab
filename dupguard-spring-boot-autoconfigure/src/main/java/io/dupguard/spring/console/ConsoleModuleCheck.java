package io.dupguard.spring.console;

import io.dupguard.spring.autoconfigure.InvalidDupguardPropertyException;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/** Fails start-up when the console is enabled but its module is not on the class path. */
@AutoConfiguration
@ConditionalOnProperty(name = "dupguard.console.enabled", havingValue = "true")
@ConditionalOnMissingClass("io.dupguard.console.Console")
public class ConsoleModuleCheck {
    /** Created by Spring. */
    public ConsoleModuleCheck() {}

    /**
     * Never returns.
     *
     * @return nothing
     */
    @Bean
    public Object dupguardConsoleModuleMissing() {
        throw new InvalidDupguardPropertyException(
                "dupguard.console.enabled",
                true,
                "the console needs the module io.dupguard:dupguard-console on the class path (docs/console.md)");
    }
}
