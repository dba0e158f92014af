package io.flashstock.web;

import com.fasterxml.jackson.annotation.JsonInclude;

/** An RFC 9457 problem detail. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, String instance) {

    public static final String MEDIA_TYPE = "application/problem+json";
}
