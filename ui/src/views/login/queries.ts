import { gql } from '@urql/core';

export const LOGIN = gql`
  mutation Login($email: String!, $password: String!) {
    login(email: $email, password: $password) {
      role
      projectId
      actor
    }
  }
`;

export const LOGIN_WITH_API_KEY = gql`
  mutation LoginWithApiKey($key: String!) {
    loginWithApiKey(key: $key) {
      role
      projectId
      actor
    }
  }
`;
