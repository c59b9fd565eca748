"""The VPC: two public and two private subnets, one NAT gateway and a free S3 endpoint.

Lambdas run in the private subnets and reach the database (or RDS Proxy) directly and the
internet (Telegram, OpenAI, SQS, Secrets Manager) through the NAT gateway. The database sits in
the private subnets too: no stage, and no parameter, gives it a public address.
"""

from __future__ import annotations

from infra.aws.cfn import Json, get_att, ref, sub, tags

VPC_CIDR = "10.42.0.0/16"
SUBNETS = {
    "PublicSubnetA": ("10.42.0.0/24", 0, True),
    "PublicSubnetB": ("10.42.1.0/24", 1, True),
    "PrivateSubnetA": ("10.42.10.0/24", 0, False),
    "PrivateSubnetB": ("10.42.11.0/24", 1, False),
}
PRIVATE_SUBNETS = [ref("PrivateSubnetA"), ref("PrivateSubnetB")]


def lambda_vpc_config(security_group: str = "LambdaSecurityGroup") -> Json:
    """VpcConfig for a function: the private subnets."""
    return {"SubnetIds": PRIVATE_SUBNETS, "SecurityGroupIds": [ref(security_group)]}


def egress_only_group(stage: str, description: str) -> Json:
    """HTTPS anywhere (AWS APIs, Telegram, OpenAI) and Postgres inside the VPC; no ingress."""
    return {"Type": "AWS::EC2::SecurityGroup", "Properties": {
        "GroupDescription": description, "VpcId": ref("Vpc"),
        "SecurityGroupEgress": [
            {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": "0.0.0.0/0",
             "Description": "HTTPS to AWS APIs, Telegram and OpenAI"},
            {"IpProtocol": "tcp", "FromPort": 5432, "ToPort": 5432, "CidrIp": VPC_CIDR,
             "Description": "Postgres (the instance or RDS Proxy)"}],
        "Tags": tags(stage)}}


def resources(stage: str) -> Json:
    res: Json = {
        "Vpc": {"Type": "AWS::EC2::VPC", "Properties": {
            "CidrBlock": VPC_CIDR, "EnableDnsSupport": True, "EnableDnsHostnames": True,
            "Tags": tags(stage, {"Name": f"itachi-{stage}"})}},
        "InternetGateway": {"Type": "AWS::EC2::InternetGateway", "Properties": {"Tags": tags(stage)}},
        "InternetGatewayAttachment": {"Type": "AWS::EC2::VPCGatewayAttachment", "Properties": {
            "VpcId": ref("Vpc"), "InternetGatewayId": ref("InternetGateway")}},
        "PublicRouteTable": {"Type": "AWS::EC2::RouteTable", "Properties": {
            "VpcId": ref("Vpc"), "Tags": tags(stage)}},
        "PublicDefaultRoute": {"Type": "AWS::EC2::Route", "DependsOn": "InternetGatewayAttachment",
                               "Properties": {"RouteTableId": ref("PublicRouteTable"),
                                              "DestinationCidrBlock": "0.0.0.0/0",
                                              "GatewayId": ref("InternetGateway")}},
        "PrivateRouteTable": {"Type": "AWS::EC2::RouteTable", "Properties": {
            "VpcId": ref("Vpc"), "Tags": tags(stage)}},
        "NatAddress": {"Type": "AWS::EC2::EIP",
                       "DependsOn": "InternetGatewayAttachment",
                       "Properties": {"Domain": "vpc", "Tags": tags(stage)}},
        "NatGateway": {"Type": "AWS::EC2::NatGateway", "Properties": {
            "AllocationId": get_att("NatAddress", "AllocationId"), "SubnetId": ref("PublicSubnetA"),
            "Tags": tags(stage)}},
        "PrivateDefaultRoute": {"Type": "AWS::EC2::Route", "Properties": {
            "RouteTableId": ref("PrivateRouteTable"), "DestinationCidrBlock": "0.0.0.0/0",
            "NatGatewayId": ref("NatGateway")}},
        # Free: S3 traffic (CloudFormation's custom resource replies) skips the NAT.
        "S3Endpoint": {"Type": "AWS::EC2::VPCEndpoint", "Properties": {
            "VpcId": ref("Vpc"), "VpcEndpointType": "Gateway",
            "ServiceName": sub("com.amazonaws.${AWS::Region}.s3"),
            "RouteTableIds": [ref("PrivateRouteTable")]}},
        "LambdaSecurityGroup": egress_only_group(stage, "Itachi Lambdas (egress only)"),
        # Its own group: only the migrations function reaches the database instance directly.
        "MigrationsSecurityGroup": egress_only_group(stage, "Itachi migrations function (egress only)"),
    }
    for name, (cidr, az, public) in SUBNETS.items():
        res[name] = {"Type": "AWS::EC2::Subnet", "Properties": {
            "VpcId": ref("Vpc"), "CidrBlock": cidr,
            "AvailabilityZone": {"Fn::Select": [az, {"Fn::GetAZs": ""}]},
            "MapPublicIpOnLaunch": False, "Tags": tags(stage, {"Name": f"itachi-{stage}-{name}"})}}
        table = "PublicRouteTable" if public else "PrivateRouteTable"
        res[f"{name}Routes"] = {"Type": "AWS::EC2::SubnetRouteTableAssociation", "Properties": {
            "SubnetId": ref(name), "RouteTableId": ref(table)}}
    return res
