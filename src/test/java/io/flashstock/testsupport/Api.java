package io.flashstock.testsupport;

import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;

/**
 * RestAssured as the tests use it: every request carries {@link Tokens#staff()}, a trusted backend's token, so the
 * suites drive the service the way a shop does. Tests of access itself send their own tokens (or none) through
 * {@link Http}, where nothing is added behind their back.
 */
public final class Api {

    private Api() {
    }

    public static RequestSpecification given() {
        return RestAssured.given().header("Authorization", Tokens.staff());
    }
}
