package io.flashstock.testsupport;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A contract case about one pod's edge only: input validation, roles, tokens, body limits. What it checks is decided
 * before any shared state (MySQL, Redis, the other pod) is asked, so the in-process suites run it for every strategy
 * and the suites against two pods or a Redis Cluster ({@link SharedStateCasesOnly}) leave it out.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
public @interface OnePod {
}
