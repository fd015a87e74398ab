package io.dupguard.examples.bench;

import io.lettuce.core.RedisClient;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Registers the hand-written ceiling filter where dupguard's would sit (after Spring Security). */
@Configuration(proxyBeanMethods = false)
class CeilingConfig {
    @Bean(destroyMethod = "shutdown")
    RedisClient ceilingRedis() {
        return RedisClient.create("redis://127.0.0.1:6379");
    }

    @Bean
    FilterRegistrationBean<HandWrittenIdempotencyFilter> ceilingFilter(RedisClient ceilingRedis) {
        FilterRegistrationBean<HandWrittenIdempotencyFilter> r =
                new FilterRegistrationBean<>(new HandWrittenIdempotencyFilter(ceilingRedis));
        r.setOrder(0);
        return r;
    }
}
