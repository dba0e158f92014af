package io.flashstock.web;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * An RFC 9457 problem detail. {@code sku}: an extension member naming the refused line of a multi-item purchase
 * (absent otherwise).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Problem(String type, String title, int status, String detail, String instance, String sku) {

    public Problem(String type, String title, int status, String detail, String instance) {
        this(type, title, status, detail, instance, null);
    }

    public static final String MEDIA_TYPE = "application/problem+json";
}
