package io.dupguard.spring.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Reports a bad {@code dupguard.*} property as a short start-up failure naming the property. */
class InvalidDupguardPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidDupguardPropertyException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, InvalidDupguardPropertyException cause) {
        return new FailureAnalysis(
                cause.getMessage(),
                "Change " + cause.property() + " (see docs/spring-boot.md, \"Properties\").",
                cause);
    }
}
