package io.flashstock.testsupport;

import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;

/**
 * RestAssured as the tests use it: every request carries {@link Tokens#staff()}, a trusted backend's token, so the
 * suites drive the service the way a shop does. Tests of access itself send their own tokens (or none) through
 * {@link Http}, where nothing is added behind their back. With two instances running, each request goes to the next
 * one ({@link Instances}).
 */
public final class Api {

    private Api() {
    }

    public static RequestSpecification given() {
        return RestAssured.given().port(Instances.nextPort()).header("Authorization", Tokens.staff());
    }
}
